package offline

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// ownChange says that the record failed call c names is one the agent had itself
// changed earlier: a write before it that went through on the same record (every id
// argument the two calls share equal: order_id “#W1”) and whose result moved the
// record's status from what a result read before it showed ("delivered" to "exchange
// requested"). A PM then sees the change that put the record where the tool turned
// this call down. It returns the sentence and the status as the write's result wrote
// it; false when there is no such write.
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
		key, ok := sameRecordAs(ids, recordIDs(w.args))
		if !ok {
			continue
		}
		now, ok := statusOf(v.msg(w.resultTurn).Content)
		was, read := v.statusBefore(w.turn, key, ids[key])
		if !ok || !read || was == now {
			continue
		}
		quote := regexp.MustCompile(`"status":\s*` + regexp.QuoteMeta(strings.TrimSpace(compact(now)))).FindString(v.msg(w.resultTurn).Content)
		if quote == "" {
			continue
		}
		text := locale.Msg("finding.own_change_before", "Key", key, "Value", quoted(ids[key]), "Tool", w.name,
			"Turn", digits(w.turn), "Was", quoted(was), "Status", quoted(now))
		return text, analyzer.Evidence{Turn: w.resultTurn, Quote: quote}, true
	}
	return locale.Text{}, analyzer.Evidence{}, false
}

// sameRecordAs reports whether two calls act on the same record: they share an id
// argument and every one they share is equal. It returns the first shared key.
func sameRecordAs(a, b map[string]string) (string, bool) {
	var shared []string
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			continue
		}
		if v != w {
			return "", false
		}
		shared = append(shared, k)
	}
	if len(shared) == 0 {
		return "", false
	}
	slices.Sort(shared)
	return shared[0], true
}

// statusBefore is the status of the record whose key is value, as the last tool
// result before turn that reads it wrote it (its top-level "status"); false when no
// result read it.
func (v *view) statusBefore(turn int, key, value string) (string, bool) {
	for t := turn - 1; t >= 1; t-- {
		if v.role(t) != transcript.RoleTool {
			continue
		}
		var record map[string]any
		if json.Unmarshal([]byte(v.msg(t).Content), &record) != nil || record[key] != value {
			continue
		}
		if s, ok := record["status"].(string); ok {
			return s, true
		}
	}
	return "", false
}

// statusOf is a tool result's top-level "status", when the result is a JSON object
// with one.
func statusOf(result string) (string, bool) {
	var record map[string]any
	if json.Unmarshal([]byte(result), &record) != nil {
		return "", false
	}
	s, ok := record["status"].(string)
	return s, ok
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		name := strings.ToLower(k)
		if !ok || s == "" || (name != "id" && !strings.HasSuffix(name, "_id")) || strings.Contains(name, "user") || paysWith(name) {
			continue
		}
		ids[k] = s
	}
	return ids
}
