package offline

import (
	"regexp"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// unavailableMark is how a tool's record says a thing cannot be had: "available":
// false, "in_stock": false, "status": "out of stock".
var unavailableMark = regexp.MustCompile(`(?i)"(available|is_available|in_stock|instock)"\s*:\s*false|"(status|availability|stock_status)"\s*:\s*"(unavailable|not available|out[ _]of[ _]stock|sold[ _]out|discontinued)"`)

// knownUnavailable finds, for the first of failed calls whose error names one of its
// own arguments ("new item 9127591879 not found or available"), an earlier tool result
// that had already shown that value unavailable: the agent read that it could not be
// had and asked for it anyway, a rejection it could have seen coming. It returns the
// sentence that says so and the quote of that record; zero when there is none.
func (v *view) knownUnavailable(failed []call) (locale.Text, analyzer.Evidence, bool) {
	for _, c := range failed {
		for _, value := range argumentValues(c.args) {
			if !strings.Contains(c.errQuote, value) {
				continue
			}
			for turn := c.turn - 1; turn >= 1; turn-- {
				if v.role(turn) != transcript.RoleTool {
					continue
				}
				if quote, ok := unavailableIn(analyzer.TurnText(v.msg(turn)), value); ok {
					return locale.Msg("finding.known_unavailable", "Read", digits(turn), "Value", value, "Tool", c.name, "Turn", digits(c.turn)),
						analyzer.Evidence{Turn: turn, Quote: quote}, true
				}
			}
		}
	}
	return locale.Text{}, analyzer.Evidence{}, false
}

// unavailableIn finds value in a tool result as a key or a field of an object that
// marks itself unavailable, and quotes from the value to the mark when that fits in a
// quote: `"9127591879": {"item_id": "9127591879", …, "available": false`.
func unavailableIn(text, value string) (string, bool) {
	needle := `"` + value + `"`
	for off := 0; ; {
		i := strings.Index(text[off:], needle)
		if i < 0 {
			return "", false
		}
		start := off + i
		off = start + len(needle)
		if end, ok := markOfObject(text, off); ok && len([]rune(text[start:end])) <= maxQuote {
			return text[start:end], true
		}
	}
}

// markOfObject looks for the unavailable mark in the object text[at:] belongs to: the
// object that follows when the value at text[:at] is a key ("id": {…}), else the rest
// of the object the value is a field of. It returns where the mark ends.
func markOfObject(text string, at int) (int, bool) {
	rest := strings.TrimLeft(text[at:], " \t\n")
	from, depth := at, 0
	if strings.HasPrefix(rest, ":") {
		after := strings.TrimLeft(rest[1:], " \t\n")
		if !strings.HasPrefix(after, "{") {
			return 0, false
		}
		from = len(text) - len(after)
	}
	end := len(text)
	for j := from; j < len(text); j++ {
		switch text[j] {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth < 0 || (depth == 0 && from != at && j > from) {
			end = j
			break
		}
	}
	m := unavailableMark.FindStringIndex(text[from:end])
	if m == nil {
		return 0, false
	}
	return from + m[1], true
}
