package locale

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// Localizer writes the catalog's messages, numbers, shares and times in one locale. It
// is safe for concurrent use. A nil Localizer writes message keys, so a page rendered
// without one shows where its words are missing instead of failing.
type Localizer struct {
	code    string
	tag     language.Tag
	loc     *i18n.Localizer
	printer *message.Printer
	// spacedByScript is true for Chinese, whose spacing around a filled slot depends
	// on the scripts that meet there (spacing.go).
	spacedByScript bool
}

func newLocalizer(bundle *i18n.Bundle, code string, tag language.Tag) *Localizer {
	return &Localizer{
		code: code, tag: tag, loc: i18n.NewLocalizer(bundle, code), printer: message.NewPrinter(tag),
		spacedByScript: code == Chinese,
	}
}

// Code is the locale's BCP 47 tag ("en", "zh-CN"), as <html lang> takes it.
func (l *Localizer) Code() string {
	if l == nil {
		return English
	}
	return l.code
}

// T writes message id with its arguments, given as name and value pairs: a string is
// written as it is, a whole number or a float by Num, a Text by Text. A message that
// has plural forms takes its form from the argument named Count. In Chinese the spaces
// at the edges of each argument are set by the scripts that meet there (spacing.go),
// so a Chinese message may test an argument only for being empty ({{if .X}}).
func (l *Localizer) T(id string, args ...any) string {
	if l == nil {
		return id
	}
	data := make(map[string]any, len(args)/2)
	var count any
	var values []string
	for i := 0; i+1 < len(args); i += 2 {
		name, _ := args[i].(string)
		v := l.value(args[i+1])
		if l.spacedByScript && v != "" {
			data[name] = slot(len(values))
			values = append(values, v)
		} else {
			data[name] = v
		}
		if name == "Count" {
			count = args[i+1]
		}
	}
	cfg := &i18n.LocalizeConfig{MessageID: id, TemplateData: data}
	if count != nil {
		cfg.PluralCount = pluralCount(count)
	}
	s, err := l.loc.Localize(cfg)
	if s == "" && err != nil {
		return id
	}
	if values != nil {
		s = fillSlots(s, values)
	}
	return oneStop(s)
}

// oneStop drops a message's full stop after a quote that already ends its own sentence
// (“…HAT039.”. and “…谢谢。”。, and a quote of the other language, “…HAT039.”。 and
// “…谢谢。”.):
// the quote's stop is the sentence's.
func oneStop(s string) string {
	if !strings.Contains(s, "”") {
		return s
	}
	for _, stop := range []string{".”.", "!”.", "?”.", "。”。", "！”。", "？”。", ".”。", "!”。", "?”。", "。”.", "！”.", "？”."} {
		s = strings.ReplaceAll(s, stop, strings.TrimSuffix(strings.TrimSuffix(stop, "."), "。"))
	}
	return s
}

// Lookup writes message id like T, and reports whether the catalog has it: a
// vocabulary's word for a value it may not know.
func (l *Localizer) Lookup(id string, args ...any) (string, bool) {
	if l == nil {
		return id, false
	}
	s := l.T(id, args...)
	return s, s != id
}

// N writes message id in the plural form of count, which the message reads as Count.
func (l *Localizer) N(id string, count int, args ...any) string {
	return l.T(id, append([]any{"Count", count}, args...)...)
}

// pluralCount is a Count argument as the plural rules read it: a whole number as an
// integer, a fraction as its decimal digits.
func pluralCount(v any) any {
	switch v := v.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return int64(v)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return 0
		}
	}
	return v
}

// value is an argument as a message shows it.
func (l *Localizer) value(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case Text:
		return l.Text(v)
	case int:
		return l.Num(v)
	case int32:
		return l.Num(int(v))
	case int64:
		return l.Num(v)
	case float64:
		return l.Num(v)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// Num writes a number with the locale's digit grouping ("12,345"), a fraction to at
// most two decimals.
func (l *Localizer) Num(n any) string {
	if l == nil {
		return fmt.Sprint(n)
	}
	return l.printer.Sprint(number.Decimal(n, number.MaxFractionDigits(2)))
}

// Decimal writes a number with exactly digits decimals ("0.72").
func (l *Localizer) Decimal(f float64, digits int) string {
	if l == nil {
		return fmt.Sprint(f)
	}
	return l.printer.Sprint(number.Decimal(f, number.MinFractionDigits(digits), number.MaxFractionDigits(digits)))
}

// Percent writes a share 0..1 as a percentage, by the rules the whole product writes
// shares with: whole percents from 10%, one decimal below ("6.5%", "1%", "0.3%"),
// under 0.1% and over 99% for shares too small or too close to all to show. The share
// is first rounded to six decimals of a percent, so a share stored as a 32-bit real
// (0.065 reads back as 0.0649999976) is written as the exact fraction would be.
func (l *Localizer) Percent(share float64) string {
	p := math.Round(share*1e8) / 1e6
	switch {
	case p <= 0:
		return l.percent(0, 0)
	case p >= 100:
		return l.percent(100, 0)
	case p < 0.05:
		return l.T("format.share_under", "Share", l.percent(0.1, 1))
	case p < 9.95:
		return l.percent(math.Round(p*10)/10, 1)
	case p >= 99.5:
		return l.T("format.share_over", "Share", l.percent(99, 0))
	}
	return l.percent(math.Round(p), 0)
}

// percent writes p percent with at most decimals decimals.
func (l *Localizer) percent(p float64, decimals int) string {
	if l == nil {
		return fmt.Sprintf("%g%%", p)
	}
	return l.printer.Sprint(number.Percent(p/100, number.MaxFractionDigits(decimals)))
}

// Time writes a moment in UTC, so every reader sees the same value: "2 Jan 2006,
// 15:04 UTC" in English.
func (l *Localizer) Time(t time.Time) string { return t.UTC().Format(l.T("format.time")) }

// Seconds is Time to the second, for a tooltip where moments minutes apart must be told
// apart.
func (l *Localizer) Seconds(t time.Time) string { return t.UTC().Format(l.T("format.seconds")) }

// Ago writes a recent moment relative to now ("just now" under a minute, "2 min ago",
// "3 h ago", "2 days ago" within a week), and an older one as Time.
func (l *Localizer) Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return l.Time(t)
	case d < time.Minute:
		return l.T("format.just_now")
	case d < time.Hour:
		return l.N("format.minutes_ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return l.N("format.hours_ago", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return l.N("format.days_ago", int(d/(24*time.Hour)))
	}
	return l.Time(t)
}

// Duration writes a duration rounded to what people care about: "under a second",
// "42 s", "3 min 5 s", "2 h 10 min".
func (l *Localizer) Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return l.T("format.under_a_second")
	case d < time.Minute:
		return l.T("format.seconds_only", "S", int(d.Seconds()))
	case d < time.Hour:
		return l.T("format.minutes_seconds", "M", int(d.Minutes()), "S", int(d.Seconds())%60)
	}
	return l.T("format.hours_minutes", "H", int(d.Hours()), "M", int(d.Minutes())%60)
}
