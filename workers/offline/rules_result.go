package offline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// fieldMismatch is a top-level field a write asked for that its result reports
// differently.
type fieldMismatch struct {
	field, asked, got string
}

// unappliedWrites reports a write whose successful result contradicts its own
// arguments — the call asked for "cabin": "economy" and the returned record says
// "business" — so the change the user wanted did not happen, whatever the tool said.
// When the agent then tells the user the change succeeded, it is a false success
// claim (RISK); otherwise an ACTION on the tool. Only top-level scalar fields present
// in both are compared (strings case-insensitively, numbers by value), so tools that
// return more than they were given are not penalised.
func (a *Analyzer) unappliedWrites(v *view) []analyzer.Finding {
	for _, c := range v.calls {
		if !c.write || c.failed || c.resultTurn == 0 {
			continue
		}
		diffs := mismatches(c.args, v.msg(c.resultTurn).Content)
		if len(diffs) == 0 {
			continue
		}
		d := diffs[0]
		what := []any{"Tool", c.name, "Turn", digits(c.turn), "Field", d.field, "Asked", quoted(d.asked),
			"Result", digits(c.resultTurn), "Got", quoted(d.got)}
		// The result's field, what the call asked for, and the agent's claim after it;
		// when the tool changed the rest of the record, what it changed too.
		ev := []analyzer.Evidence{v.quoteField(c.resultTurn, d), quoteAsked(c, d)}
		kind, claimed, unclaimed := "finding.unapplied", ruleUnappliedClaim, ruleUnapplied
		if before, changed := v.keptField(c, d); before > 0 {
			// The tool took the call: whoever confirms it, the fix is the tool's.
			kind, claimed, unclaimed = "finding.unapplied_kept", ruleKeptField, ruleKeptField
			what = append(what, "Before", digits(before), "Changed", locale.Join("join.and", fieldNames(changed)...))
			ev = append(ev, v.quoteKey(c.resultTurn, shortestField(v.msg(c.resultTurn).Content, changed)))
		}
		if claim, turn, ok := a.nextClaim(v, c.resultTurn); ok {
			desc := locale.Msg(kind+"_claim", append(what, "Claim", digits(turn))...)
			return []analyzer.Finding{claimed.finding(v, desc, 0, append(ev, claim)...)}
		}
		return []analyzer.Finding{unclaimed.finding(v, locale.Msg(kind, what...), 0, ev...)}
	}
	return nil
}

// quoteField quotes where a write's result reports a field differently from what was
// asked, key and value ("cabin": "business"); the start of the result when the field
// cannot be found as written.
func (v *view) quoteField(turn int, d fieldMismatch) analyzer.Evidence {
	text := analyzer.TurnText(v.msg(turn))
	key := `"` + d.field + `"`
	for off := 0; ; {
		i := strings.Index(text[off:], key)
		if i < 0 {
			return v.quoteTurn(turn)
		}
		start := off + i
		rest := strings.TrimLeft(text[start+len(key):], " \t\n:\"")
		if strings.HasPrefix(strings.ToLower(rest), strings.ToLower(d.got)) {
			end := len(text) - len(rest) + len(d.got)
			if strings.HasPrefix(text[end:], `"`) {
				end++
			}
			return analyzer.Evidence{Turn: turn, Quote: textmatch.ClipQuote(text[start:end], maxQuote)}
		}
		off = start + len(key)
	}
}

// quoteAsked quotes the field a write asked for as its arguments write it
// ("cabin":"economy"), the whole call when it cannot be found so.
func quoteAsked(c call, d fieldMismatch) analyzer.Evidence {
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(c.args), &args) == nil {
		if text := argumentText(c.args, d.field, args[d.field]); text != "" {
			return analyzer.Evidence{Turn: c.turn, Quote: textmatch.ClipQuote(text, maxQuote)}
		}
	}
	return quoteCall(c)
}

// nextClaim finds the agent's next message in words after turn, before the user
// speaks again, when it claims success without admitting a problem.
func (a *Analyzer) nextClaim(v *view, after int) (analyzer.Evidence, int, bool) {
	for turn := after + 1; turn <= len(v.conv.Messages); turn++ {
		switch {
		case v.role(turn) == transcript.RoleUser:
			return analyzer.Evidence{}, 0, false
		case v.role(turn) != transcript.RoleAssistant || !v.hasText(turn):
			continue
		}
		f := v.fold(turn)
		m, ok := a.m.successClaim.Find(f)
		if !ok || a.m.failureAck.Contains(f) {
			return analyzer.Evidence{}, 0, false
		}
		return v.quoteMatch(turn, m), turn, true
	}
	return analyzer.Evidence{}, 0, false
}

// mismatches compares the top-level scalar fields of a call's JSON arguments with the
// same fields of its JSON object result, sorted by field name. Only the result's fields
// that were asked for are decoded: a result is often a large record of which the call
// named two or three fields, and a value elsewhere in it that Go cannot hold (a number
// beyond float64) does not hide a mismatch.
func mismatches(args, result string) []fieldMismatch {
	var asked map[string]any
	var got map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &asked) != nil || json.Unmarshal([]byte(result), &got) != nil {
		return nil
	}
	var out []fieldMismatch
	for field, av := range asked {
		raw, ok := got[field]
		if !ok || !isScalar(av) {
			continue
		}
		var gv any
		if json.Unmarshal(raw, &gv) != nil || !isScalar(gv) {
			continue
		}
		if !sameScalar(av, gv) {
			out = append(out, fieldMismatch{field: field, asked: fmt.Sprint(av), got: fmt.Sprint(gv)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].field < out[j].field })
	return out
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

func sameScalar(a, b any) bool {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		return strings.EqualFold(strings.TrimSpace(as), strings.TrimSpace(bs))
	}
	return a == b
}
