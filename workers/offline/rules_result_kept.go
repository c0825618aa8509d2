package offline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// keptField tells a write that changed the record but not the field it was asked to
// from one that changed nothing. It finds the record as the agent read it before the
// call: the latest earlier tool result that is a JSON object holding d's field and one
// of the call's other string arguments under the same key with the same value (the
// reservation id). When that record already had the value the result still reports,
// and other fields the two share differ (prices, a payment), the tool took the call
// and kept the old value: it stored only part of the change, or reports it so. It
// returns that record's turn and the fields that changed, sorted; 0 otherwise.
func (v *view) keptField(c call, d fieldMismatch) (int, []string) {
	var args map[string]any
	var after map[string]json.RawMessage
	if json.Unmarshal([]byte(c.args), &args) != nil || json.Unmarshal([]byte(v.msg(c.resultTurn).Content), &after) != nil {
		return 0, nil
	}
	for turn := c.turn - 1; turn >= 1; turn-- {
		var before map[string]json.RawMessage
		if v.role(turn) != transcript.RoleTool || json.Unmarshal([]byte(v.msg(turn).Content), &before) != nil ||
			!sameRecord(args, before, d.field) {
			continue
		}
		var was any
		if json.Unmarshal(before[d.field], &was) != nil || !isScalar(was) || !strings.EqualFold(fmt.Sprint(was), d.got) {
			return 0, nil
		}
		var changed []string
		for key, raw := range after {
			if key != d.field && before[key] != nil && !sameJSON(raw, before[key]) {
				changed = append(changed, key)
			}
		}
		if len(changed) == 0 {
			return 0, nil
		}
		slices.Sort(changed)
		return turn, changed
	}
	return 0, nil
}

// sameRecord reports whether a tool result is the record a call names: it holds the
// field the call asked to change and, under the same key, the value of one of the
// call's other string arguments (the id).
func sameRecord(args map[string]any, record map[string]json.RawMessage, field string) bool {
	if record[field] == nil {
		return false
	}
	for key, av := range args {
		s, ok := av.(string)
		if !ok || key == field || record[key] == nil {
			continue
		}
		var rv string
		if json.Unmarshal(record[key], &rv) == nil && strings.TrimSpace(s) != "" && rv == s {
			return true
		}
	}
	return false
}

// sameJSON reports whether two JSON values are equal as values: objects whatever the
// order of their keys.
func sameJSON(a, b json.RawMessage) bool {
	var av, bv any
	if json.Unmarshal(a, &av) != nil || json.Unmarshal(b, &bv) != nil {
		return false
	}
	return reflect.DeepEqual(av, bv)
}

// fieldNames are at most two field names as a sentence lists them.
func fieldNames(keys []string) []locale.Text {
	out := make([]locale.Text, 0, 2)
	for _, k := range keys[:min(2, len(keys))] {
		out = append(out, locale.Lit(k))
	}
	return out
}

// shortestField is the one of keys whose value in a JSON object result is shortest:
// the changed field most likely quoted whole (a payment rather than every flight).
func shortestField(result string, keys []string) string {
	var record map[string]json.RawMessage
	_ = json.Unmarshal([]byte(result), &record)
	return slices.MinFunc(keys, func(a, b string) int { return len(record[a]) - len(record[b]) })
}

// quoteKey quotes a field of a JSON result, its key and its value ("price": 200),
// clipped; the start of the result when the key cannot be found as written.
func (v *view) quoteKey(turn int, key string) analyzer.Evidence {
	text := analyzer.TurnText(v.msg(turn))
	i := strings.Index(text, `"`+key+`"`)
	if i < 0 {
		return v.quoteTurn(turn)
	}
	value := i + len(key) + 2
	value += len(text[value:]) - len(strings.TrimLeft(text[value:], " \t\n:"))
	end := len(text)
	dec := json.NewDecoder(strings.NewReader(text[value:]))
	var raw json.RawMessage
	if dec.Decode(&raw) == nil {
		end = value + int(dec.InputOffset())
	}
	return analyzer.Evidence{Turn: turn, Quote: textmatch.ClipQuote(text[i:end], maxQuote)}
}
