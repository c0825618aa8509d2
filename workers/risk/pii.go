package risk

import (
	"regexp"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Personal data shown by the assistant: the detectors, their check digits (Luhn for
// cards, GB 11643 for resident IDs) and how each value is masked in a quote.

// piiDetector finds one kind of personal data in folded text. valid confirms a
// candidate (Luhn, ID check digit); mask renders the value for the risk summary.
type piiDetector struct {
	detail    string
	re        *regexp.Regexp
	minDigits int  // the fewest digits a match has: texts without such a run skip the regexp
	marker    byte // a byte every match contains ('@'), 0 for none
	valid     func(digits string) bool
	mask      func(value string) string
}

// newPIIDetectors returns the detectors in priority order: a span claimed by an earlier
// detector (an 18-digit resident ID) is not reported again by a later one (a card
// number that happens to pass Luhn).
func newPIIDetectors() []piiDetector {
	return []piiDetector{
		{detail: "email address", re: regexp.MustCompile(`[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}`), marker: '@', mask: maskEmail},
		{detail: "resident ID number", re: regexp.MustCompile(`\b\d{17}[\dx]\b`), minDigits: 17, valid: validResidentID, mask: keepEnds(3, 1)},
		{detail: "payment card number", re: regexp.MustCompile(`\b\d(?:[ \-]?\d){12,18}\b`), minDigits: 13, valid: validCard, mask: keepEnds(0, 4)},
		{detail: "social security number", re: regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`), minDigits: 9, valid: validSSN, mask: keepEnds(0, 4)},
		{detail: "phone number", re: regexp.MustCompile(`(?:\+86[ \-]?|\b)1[3-9]\d[ \-]?\d{4}[ \-]?\d{4}\b`), minDigits: 11, mask: keepEnds(3, 4)},
		{detail: "phone number", re: regexp.MustCompile(`\+\d{1,3}[ \-]?\(?\d{1,4}\)?(?:[ \-]?\d{2,4}){2,4}\b`), minDigits: 8, valid: digitCount(8, 15), mask: keepEnds(0, 4)},
		{detail: "phone number", re: regexp.MustCompile(`(?:\(\d{3}\) ?|\b\d{3}[\-. ])\d{3}[\-. ]\d{4}\b`), minDigits: 10, mask: keepEnds(0, 4)},
	}
}

// PIIMatch is one piece of personal data found in a text: its byte span, what it is,
// and its masked form.
type PIIMatch struct {
	Start, End int
	Detail     string
	Masked     string
}

// PersonalData finds the personal data in text: email addresses, phone numbers
// (international, mainland China mobile, US), payment card numbers passing Luhn,
// mainland resident ID numbers with a valid check character, and US social security
// numbers.
func (s *Screener) PersonalData(text string) []PIIMatch {
	return s.personalData(textmatch.Fold(text))
}

func (s *Screener) personalData(f textmatch.Folded) []PIIMatch {
	var found []PIIMatch
	run := longestDigitRun(f.Text)
	for _, d := range s.pii {
		if d.minDigits > run || (d.marker != 0 && strings.IndexByte(f.Text, d.marker) < 0) {
			continue
		}
		for _, loc := range d.re.FindAllStringIndex(f.Text, -1) {
			digits := digitsOf(f.Text[loc[0]:loc[1]])
			if d.valid != nil && !d.valid(digits) {
				continue
			}
			if d.detail == "phone number" && (serviceNumber(digits) || maskedBefore(f.Text[:loc[0]])) {
				continue
			}
			start, end := f.Span(loc[0], loc[1])
			if overlaps(found, start, end) {
				continue
			}
			found = append(found, PIIMatch{Start: start, End: end, Detail: d.detail, Masked: d.mask(strings.TrimSpace(f.Orig[start:end]))})
		}
	}
	slices.SortFunc(found, func(a, b PIIMatch) int { return a.Start - b.Start })
	return found
}

// serviceNumber reports whether phone digits are a company's service line rather than a
// person's: mainland 400 and 800 numbers, and North American toll-free numbers.
func serviceNumber(digits string) bool {
	d := strings.TrimPrefix(digits, "86")
	if len(d) == 10 && (strings.HasPrefix(d, "400") || strings.HasPrefix(d, "800")) {
		return true
	}
	d = strings.TrimPrefix(digits, "1")
	if len(d) == 10 {
		switch d[:3] {
		case "800", "833", "844", "855", "866", "877", "888":
			return true
		}
	}
	return false
}

// maskedBefore reports whether the text before a match ends in masking ("*** *** " or
// "xxxx-"): the digits that follow are the visible end of a value already hidden.
func maskedBefore(before string) bool {
	t := strings.TrimRight(before, " -.")
	return strings.HasSuffix(t, "*") || strings.HasSuffix(t, "xxx") || strings.HasSuffix(t, "•")
}

// screenPII returns one personal_data flag per kind of data found in an assistant turn.
func (s *Screener) screenPII(turn int, f textmatch.Folded) []Flag {
	var flags []Flag
	seen := map[string]bool{}
	for _, m := range s.personalData(f) {
		if !seen[m.Detail] {
			seen[m.Detail] = true
			flags = append(flags, Flag{Kind: KindPersonalData, Turn: turn, Quote: m.Masked, Detail: m.Detail})
		}
	}
	return flags
}

// longestDigitRun counts the digits of the longest run in s whose digits are at most two
// separator characters (space, - . ( ) +) apart: an upper bound on the digits any
// detector can match, computed in one pass.
func longestDigitRun(s string) int {
	best, run, gap := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			run++
			gap = 0
			best = max(best, run)
		case run > 0 && gap < 2 && strings.IndexByte(" -.()+", c) >= 0:
			gap++
		default:
			run, gap = 0, 0
		}
	}
	return best
}

func overlaps(found []PIIMatch, start, end int) bool {
	for _, m := range found {
		if start < m.End && m.Start < end {
			return true
		}
	}
	return false
}

// digitsOf keeps the ASCII digits and a trailing check character x of s.
func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= '0' && r <= '9') || r == 'x' || r == 'X' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// validCard applies the Luhn check to 13–19 digits; a run of one repeated digit passes
// Luhn but is never a card.
func validCard(digits string) bool {
	if len(digits) < 13 || len(digits) > 19 || strings.Count(digits, digits[:1]) == len(digits) {
		return false
	}
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// validResidentID checks an 18-character mainland China resident ID: a plausible birth
// date in characters 7–14 and the GB 11643-1999 check character (ISO 7064 MOD 11-2).
func validResidentID(id string) bool {
	if len(id) != 18 {
		return false
	}
	month := (id[10]-'0')*10 + id[11] - '0'
	day := (id[12]-'0')*10 + id[13] - '0'
	if (id[6] != '1' || id[7] != '9') && (id[6] != '2' || id[7] != '0') || month < 1 || month > 12 || day < 1 || day > 31 {
		return false
	}
	weights := [17]int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i, w := range weights {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
		sum += int(id[i]-'0') * w
	}
	check := id[17]
	if check == 'x' {
		check = 'X'
	}
	return "10X98765432"[sum%11] == check
}

// validSSN rejects numbers the US never issues: area 000, 666 or 9xx, group 00,
// serial 0000.
func validSSN(digits string) bool {
	if len(digits) != 9 {
		return false
	}
	area, group, serial := digits[:3], digits[3:5], digits[5:]
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000"
}

func digitCount(lo, hi int) func(string) bool {
	return func(digits string) bool { return len(digits) >= lo && len(digits) <= hi }
}

// keepEnds masks every digit of a value except the first and last few, keeping its
// separators, so "4242 4242 4242 4242" becomes "**** **** **** 4242".
func keepEnds(first, last int) func(string) string {
	return func(v string) string {
		total := len(digitsOf(v))
		out := []rune(v)
		seen := 0
		for i, r := range out {
			if (r >= '0' && r <= '9') || r == 'x' || r == 'X' {
				if seen >= first && seen < total-last {
					out[i] = '*'
				}
				seen++
			}
		}
		return string(out)
	}
}

// maskEmail keeps the first character of the local part and the domain.
func maskEmail(v string) string {
	at := strings.LastIndexByte(v, '@')
	if at <= 0 {
		return "***"
	}
	first := []rune(v[:at])[0]
	return string(first) + "***" + v[at:]
}
