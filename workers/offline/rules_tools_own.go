package offline

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// statusField is a record's status as a tool result writes it, quoted whole.
var statusField = regexp.MustCompile(`"status":\s*"[^"]*"`)

// ownChange says that the record failed call c names is one the agent had itself
// changed earlier: a write before it that went through with the same id argument
// (order_id “#W1”) and whose result reports the record's status ("exchange
// requested"). A PM then reads the failure as the agent's own order of steps — a
// change that locked the record before the next one — not as a rule out of the blue.
// It returns the sentence and the status its result showed; false when there is none.
func (v *view) ownChange(c call) (locale.Text, analyzer.Evidence, bool) {
	ids := recordIDs(c.args)
	if len(ids) == 0 {
		return locale.Text{}, analyzer.Evidence{}, false
	}
	for i := slices.IndexFunc(v.calls, func(d call) bool { return d.turn == c.turn && d.id == c.id }) - 1; i >= 0; i-- {
		w := v.calls[i]
		if !w.write || w.failed || w.resultTurn == 0 {
			continue
		}
		written := recordIDs(w.args)
		for _, key := range slices.Sorted(maps.Keys(written)) {
			value := written[key]
			if ids[key] != value {
				continue
			}
			status := statusField.FindString(v.msg(w.resultTurn).Content)
			if status == "" {
				continue
			}
			var s struct{ Status string }
			if json.Unmarshal([]byte("{"+status+"}"), &s) != nil {
				continue
			}
			text := locale.Msg("finding.own_change_before", "Key", key, "Value", quoted(value), "Tool", w.name,
				"Turn", digits(w.turn), "Status", quoted(s.Status))
			return text, analyzer.Evidence{Turn: w.resultTurn, Quote: status}, true
		}
	}
	return locale.Text{}, analyzer.Evidence{}, false
}

// recordIDs are the id arguments of a call that name the record it acts on (order_id,
// reservation_id): string values of keys "id" or ending in "_id", but not the user's
// or a way to pay, which many records share.
func recordIDs(args string) map[string]string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return nil
	}
	ids := map[string]string{}
	for k, v := range m {
		s, ok := v.(string)
		name := strings.ToLower(k)
		if !ok || s == "" || (name != "id" && !strings.HasSuffix(name, "_id")) || strings.Contains(name, "user") || paysWith(name) {
			continue
		}
		ids[k] = s
	}
	return ids
}
