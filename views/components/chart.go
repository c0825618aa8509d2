package components

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/checkup-dev/checkup/db/locale"
)

// Charts are server-rendered SVG: no script, text labels in the drawing, and a title
// and a description for screen readers. Their colours come from the stylesheet
// (classes, not inline styles, which the Content-Security-Policy forbids). Every chart
// is drawn in a viewBox chartWidth wide and scales to its container, up to a width the
// stylesheet sets, so it reads the same on a phone and on a desktop.

// Geometry of the bar charts, in viewBox units (CSS pixels at full size).
const (
	chartWidth  = 340
	labelHeight = 15 // the line of a row's label, above its bars
	barHeight   = 10
	barGap      = 3
	rowGap      = 9
	valueRoom   = 92 // right of the longest bar, for its value text
	labelUnits  = 50 // how many narrow characters a label line holds
)

// BarChart is a chart of rows, each with one or two horizontal bars: a share per
// cluster, a failure rate with and without a driver, a share before and after.
type BarChart struct {
	ID     string   // unique on the page: the ids of the title and description derive from it
	Title  string   // what the chart shows, read first by screen readers
	Desc   string   // how to read it
	Series []string // the name of each bar of a row, in order; a legend when there are two
	// Classes colour each series' bars (and its legend swatch) where a bar names no
	// class of its own; by default s0, s1.
	Classes []string
	Rows    []BarRow
	Max     float64 // the value of a full-width bar; 0 takes the largest value
}

// BarRow is one row: its label and the values of its bars.
type BarRow struct {
	Label string
	Bars  []Bar
	Href  string // where the row links to; empty for none
}

// Bar is one bar: its value (0..Max), the text written beside it and a class for its
// colour (by default the series': s0, s1).
type Bar struct {
	Value float64
	Text  string
	Class string
}

// drawnRow is a row laid out.
type drawnRow struct {
	Label, FullLabel, Href string
	LabelY                 int
	Bars                   []drawnBar
	Summary                string // the row in words, for its <title>
}

type drawnBar struct {
	Y, Width, TextX int
	Text, Class     string
}

// layout places the rows and returns them with the chart's height.
func (c BarChart) layout(l *locale.Localizer) ([]drawnRow, int) {
	maxV := c.Max
	if maxV <= 0 {
		for _, r := range c.Rows {
			for _, b := range r.Bars {
				maxV = max(maxV, b.Value)
			}
		}
	}
	y := 0
	if len(c.Series) > 1 {
		y = labelHeight + 4 // the legend
	}
	rows := make([]drawnRow, 0, len(c.Rows))
	for _, r := range c.Rows {
		d := drawnRow{Label: clipLabel(r.Label, labelUnits), FullLabel: r.Label, Href: r.Href, LabelY: y + labelHeight - 4}
		y += labelHeight
		var words []locale.Text
		for i, b := range r.Bars {
			w := 0
			if maxV > 0 {
				w = int(float64(chartWidth-valueRoom) * min(max(b.Value, 0), maxV) / maxV)
			}
			if b.Value > 0 {
				w = max(w, 1) // a non-zero value shows
			}
			class := cmp.Or(b.Class, c.seriesClass(i))
			d.Bars = append(d.Bars, drawnBar{Y: y, Width: w, TextX: w + 4, Text: b.Text, Class: class})
			name := ""
			if i < len(c.Series) {
				name = c.Series[i] + " "
			}
			words = append(words, locale.Lit(name+b.Text))
			y += barHeight + barGap
		}
		d.Summary = l.T("chart.row", "Label", r.Label, "Values", locale.Join("join.comma", words...))
		rows = append(rows, d)
		y += rowGap
	}
	return rows, max(y, 1)
}

// legend is the legend of a two-series chart: a swatch and a name per series.
func (c BarChart) legend() []drawnBar {
	if len(c.Series) < 2 {
		return nil
	}
	var out []drawnBar
	x := 0
	for i, name := range c.Series {
		out = append(out, drawnBar{Y: 2, Width: x, TextX: x + 14, Text: name, Class: c.seriesClass(i)})
		x += 14 + 7*textUnits(name) + 16
	}
	return out
}

// seriesClass is the class of series i's bars.
func (c BarChart) seriesClass(i int) string {
	if i < len(c.Classes) && c.Classes[i] != "" {
		return c.Classes[i]
	}
	return "s" + strconv.Itoa(i)
}

// textUnits is roughly how many narrow characters wide s is: wide (CJK) characters
// count two.
func textUnits(s string) int {
	n := 0
	for _, r := range s {
		n++
		if wide(r) {
			n++
		}
	}
	return n
}

func wide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana) || (r >= 0xFF00 && r <= 0xFF60)
}

// clipLabel cuts a label to what a line of units narrow characters holds, with an
// ellipsis; the whole label stays in the row's <title>.
func clipLabel(s string, units int) string {
	s = strings.Join(strings.Fields(s), " ")
	if textUnits(s) <= units {
		return s
	}
	n := 0
	for i, r := range s {
		w := 1
		if wide(r) {
			w = 2
		}
		if n+w > units-1 {
			return strings.TrimSpace(s[:i]) + "…"
		}
		n += w
	}
	return s
}

// Sparkline is a small line of a few values over time, oldest first, for a table cell.
type Sparkline struct {
	Title   string    // what the values are
	Points  []float64 // 0..1
	Texts   []string  // each point in words, oldest first
	Caption string    // shown beside the line: the first and the last value
}

// Sparkline geometry, in viewBox units.
const (
	sparkWidth  = 84
	sparkHeight = 22
	sparkPad    = 3
)

// path is the polyline's points and the position of the last point. The line spans
// 0 to the largest point, so a small share's changes show; the words say the values.
func (s Sparkline) path() (points string, lastX, lastY string) {
	n := len(s.Points)
	top := 0.0
	for _, v := range s.Points {
		top = max(top, v)
	}
	if top <= 0 {
		top = 1
	}
	var b strings.Builder
	for i, v := range s.Points {
		x := float64(sparkWidth) / 2
		if n > 1 {
			x = sparkPad + float64(i)*float64(sparkWidth-2*sparkPad)/float64(n-1)
		}
		y := sparkPad + (1-min(max(v, 0), top)/top)*float64(sparkHeight-2*sparkPad)
		if i > 0 {
			b.WriteByte(' ')
		}
		lastX, lastY = fmt.Sprintf("%.1f", x), fmt.Sprintf("%.1f", y)
		b.WriteString(lastX + "," + lastY)
	}
	return b.String(), lastX, lastY
}

// StackedBar is one bar split into parts that add up to a whole: the outcome mix.
type StackedBar struct {
	ID, Title, Desc string
	Parts           []StackPart
}

// StackPart is one part of a stacked bar.
type StackPart struct {
	Name  string
	Count int
	Class string
}

type drawnPart struct {
	X, Width, LegendY int
	Text, Class       string
}

// Stacked bar geometry: the bar, then one legend line per part.
const (
	stackHeight = 18
	legendLine  = 17
)

// layout places the parts along the bar and their legend lines under it, and returns
// the chart's height.
func (s StackedBar) layout(l *locale.Localizer) ([]drawnPart, int) {
	total := 0
	for _, p := range s.Parts {
		total += p.Count
	}
	var out []drawnPart
	x, y := 0, stackHeight+6
	for i, p := range s.Parts {
		w := 0
		if total > 0 {
			w = int(float64(chartWidth) * float64(p.Count) / float64(total))
			if i == len(s.Parts)-1 {
				w = chartWidth - x // no gap from rounding
			}
		}
		text := l.T("chart.part", "Name", p.Name, "N", p.Count, "Share", l.Percent(fraction(p.Count, total)))
		out = append(out, drawnPart{X: x, Width: w, LegendY: y, Text: text, Class: p.Class})
		x += w
		y += legendLine
	}
	return out, y
}

func fraction(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func itoa(n int) string { return strconv.Itoa(n) }

func viewBox(w, h int) string { return "0 0 " + itoa(w) + " " + itoa(h) }

// sparkLabel is a sparkline in words: its title and each point.
func sparkLabel(l *locale.Localizer, s Sparkline) string {
	texts := make([]locale.Text, len(s.Texts))
	for i, t := range s.Texts {
		texts[i] = locale.Lit(t)
	}
	return l.T("chart.row", "Label", s.Title, "Values", locale.Join("join.semicolon", texts...))
}
