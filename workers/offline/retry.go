package offline

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// followsError reports whether a retry changes only values the failed call's error
// named ("total price is 375, but paid 374", then the same payment with 375): the agent
// did what the tool said it needs, and the user's choice stands. A retry that changes
// anything else (another payment method, another bag count), fills in what the failed
// call left empty, or changes the shape of the arguments is a new choice the user has
// not agreed to.
func followsError(failedArgs, retryArgs, errText string) bool {
	var was, is any
	if json.Unmarshal([]byte(failedArgs), &was) != nil || json.Unmarshal([]byte(retryArgs), &is) != nil {
		return false
	}
	var changed []leafChange
	if !changedLeaves(was, is, &changed) || len(changed) == 0 {
		return false
	}
	for _, c := range changed {
		if !containsToken(errText, c.is) {
			return false
		}
	}
	return true
}

// leafChange is one value a retry changed, as text: what the failed call had, what the
// retry has.
type leafChange struct{ was, is string }

// changedLeaves appends to changed each value of is that differs from was's at the
// same place, objects' keys in sorted order; false when the two differ in shape (keys,
// lengths, types), which no single value names.
func changedLeaves(was, is any, changed *[]leafChange) bool {
	switch is := is.(type) {
	case map[string]any:
		was, ok := was.(map[string]any)
		if !ok || len(was) != len(is) {
			return false
		}
		for _, k := range slices.Sorted(maps.Keys(is)) {
			w, ok := was[k]
			if !ok || !changedLeaves(w, is[k], changed) {
				return false
			}
		}
		return true
	case []any:
		was, ok := was.([]any)
		if !ok || len(was) != len(is) {
			return false
		}
		for i := range is {
			if !changedLeaves(was[i], is[i], changed) {
				return false
			}
		}
		return true
	}
	if c := (leafChange{leafText(was), leafText(is)}); c.was != c.is {
		*changed = append(*changed, c)
	}
	return true
}

// leafText is a JSON scalar as a message would write it: a string without its quotes,
// a number in its shortest form.
func leafText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// containsToken reports whether value occurs in text as a whole word or number, not
// inside a longer one ("375" in "paid 375", not in "1375").
func containsToken(text, value string) bool {
	if value == "" {
		return false
	}
	for at := 0; ; {
		i := strings.Index(text[at:], value)
		if i < 0 {
			return false
		}
		start, end := at+i, at+i+len(value)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		at = start + 1
	}
}

// wordRune reports a rune that continues a word or a number. Chinese and Japanese
// characters do not: those scripts write a number straight after a word ("总价375").
func wordRune(r rune) bool {
	if r == utf8.RuneError || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// records are where tool results before the retry describe the value the agent chose
// on its own and the one it had ("gift_card_6276644": {"source": "gift_card",
// "amount": 113, ...}), so a reader sees what the ids stand for: for the first changed
// string value of the retry that an earlier result names as a key of an object, the
// failed call's value's record when there is one, then that record. None when there is
// none.
func (v *view) records(failed, retry call) []analyzer.Evidence {
	var was, is any
	if json.Unmarshal([]byte(failed.args), &was) != nil || json.Unmarshal([]byte(retry.args), &is) != nil {
		return nil
	}
	var changed []leafChange
	if !changedLeaves(was, is, &changed) {
		return nil
	}
	for _, c := range changed {
		if chosen, ok := v.recordBefore(c.is, retry.turn); ok {
			if had, ok := v.recordBefore(c.was, retry.turn); ok {
				return []analyzer.Evidence{had, chosen}
			}
			return []analyzer.Evidence{chosen}
		}
	}
	return nil
}

// recordBefore is the first tool result before turn that writes value as the key of an
// object, quoting the key with its object.
func (v *view) recordBefore(value string, turn int) (analyzer.Evidence, bool) {
	key, _ := json.Marshal(value)
	for t := 1; t < turn; t++ {
		if v.role(t) != transcript.RoleTool {
			continue
		}
		if record := objectAt(v.msg(t).Content, string(key)+":"); record != "" {
			return analyzer.Evidence{Turn: t, Quote: textmatch.ClipQuote(record, maxQuote)}, true
		}
	}
	return analyzer.Evidence{}, false
}

// objectAt is `"key": {...}` as text writes it, the object whole (its braces matched,
// strings skipped), or "" when text has no such key followed by an object. key ends in
// its colon; any spaces after it may stand before the brace.
func objectAt(text, key string) string { return valueAt(text, key, '{') }

// valueAt is `"key": ` and the object or list that follows it as text writes it
// (opening with the bracket open), or "" when there is none.
func valueAt(text, key string, open byte) string {
	at := strings.Index(text, key)
	if at < 0 {
		return ""
	}
	start := at + len(key)
	for start < len(text) && text[start] == ' ' {
		start++
	}
	if start == len(text) || text[start] != open {
		return ""
	}
	if closed, _ := textmatch.Brackets(text[start:]); closed > 0 {
		return text[at : start+closed]
	}
	return ""
}

// swapped is what a retry put in place of what in argument key, when the change is of
// plain values: the value itself ("payment_id" gift_card_1 for gift_card_2), or the
// items of a list of the same length that differ (at most two), an object item by the
// one id it changed (plainPair). Nil when the change is
// of anything else, so a PM reads what the user was not asked about.
func swapped(failedArgs, retryArgs, key string) (was, now []string) {
	var before, after map[string]any
	if json.Unmarshal([]byte(failedArgs), &before) != nil || json.Unmarshal([]byte(retryArgs), &after) != nil {
		return nil, nil
	}
	b, a := before[key], after[key]
	bl, ok1 := b.([]any)
	al, ok2 := a.([]any)
	if !ok1 || !ok2 {
		bl, al = []any{b}, []any{a}
	}
	if len(bl) != len(al) {
		return nil, nil
	}
	for i := range bl {
		if compact(bl[i]) == compact(al[i]) {
			continue
		}
		bs, as, ok := plainPair(bl[i], al[i])
		if !ok || len(was) == 2 {
			return nil, nil
		}
		was, now = append(was, bs), append(now, as)
	}
	return was, now
}

// keptAsIs reports a retry whose only change puts back, in one item of list argument
// key, what another list argument held at the same place in both calls (new_item_ids
// “111” changed to “900”, where item_ids holds “900”: the "new" item is the one it was
// to replace), so the retry leaves that item as it was rather than changing it as the
// user had agreed. It returns key, that other argument and the item; false for any
// other retry.
func keptAsIs(failedArgs, retryArgs string) (key, other, item string, ok bool) {
	var before, after map[string]any
	if json.Unmarshal([]byte(failedArgs), &before) != nil || json.Unmarshal([]byte(retryArgs), &after) != nil {
		return "", "", "", false
	}
	keys := slices.Collect(maps.Keys(before))
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	var changed []string
	for _, k := range keys {
		if compact(before[k]) != compact(after[k]) {
			changed = append(changed, k)
		}
	}
	if len(changed) != 1 {
		return "", "", "", false
	}
	key = changed[0]
	bl, ok1 := before[key].([]any)
	al, ok2 := after[key].([]any)
	if !ok1 || !ok2 || len(bl) != len(al) {
		return "", "", "", false
	}
	at := -1
	for i := range al {
		if compact(bl[i]) != compact(al[i]) {
			if at >= 0 {
				return "", "", "", false // more than one item changed
			}
			at = i
		}
	}
	if at < 0 {
		return "", "", "", false
	}
	item, plain := plainValue(al[at])
	if !plain {
		return "", "", "", false
	}
	for _, o := range slices.Sorted(maps.Keys(after)) {
		ol, ok := after[o].([]any)
		if o == key || !ok || len(ol) != len(al) {
			continue
		}
		if compact(ol[at]) == compact(al[at]) { // unchanged in both calls: o is not in changed
			return key, o, item, true
		}
	}
	return "", "", "", false
}

// plainPair is what one item of a list became, as plain values: the items themselves,
// or, for two objects, the one id they differ in ({"payment_id": "credit_card_1",
// "amount": 155} for {"payment_id": "certificate_2", "amount": 205}: the one paid with;
// what else changed with it, the amount, is left to the example's quotes). False when
// the change is of anything else.
func plainPair(was, now any) (string, string, bool) {
	bs, ok1 := plainValue(was)
	as, ok2 := plainValue(now)
	if ok1 && ok2 {
		return bs, as, true
	}
	bm, ok1 := was.(map[string]any)
	am, ok2 := now.(map[string]any)
	if !ok1 || !ok2 {
		return "", "", false
	}
	var ids []string
	for _, k := range slices.Sorted(maps.Keys(bm)) {
		if name := strings.ToLower(k); name == "id" || strings.HasSuffix(name, "_id") {
			if compact(bm[k]) != compact(am[k]) {
				ids = append(ids, k)
			}
		}
	}
	if len(ids) != 1 {
		return "", "", false
	}
	bs, ok1 = plainValue(bm[ids[0]])
	as, ok2 = plainValue(am[ids[0]])
	return bs, as, ok1 && ok2
}

// plainValue is a string or number as text; false for anything else.
func plainValue(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		return compact(t), true
	}
	return "", false
}

// leftOut is what a retry dropped from a list argument of the failed call: the items of
// key's array there that the retry's array lacks, as compact JSON, when the retry's
// array holds nothing the failed one did not ("flights" without HAT290's entry: a
// flight taken off the reservation). Nil when the retry changed the list otherwise.
func leftOut(failedArgs, retryArgs, key string) []string {
	var was, is map[string]any
	if json.Unmarshal([]byte(failedArgs), &was) != nil || json.Unmarshal([]byte(retryArgs), &is) != nil {
		return nil
	}
	before, ok1 := was[key].([]any)
	after, ok2 := is[key].([]any)
	if !ok1 || !ok2 || len(after) >= len(before) {
		return nil
	}
	kept := map[string]int{}
	for _, item := range after {
		kept[compact(item)]++
	}
	var dropped []string
	for _, item := range before {
		if text := compact(item); kept[text] > 0 {
			kept[text]--
		} else {
			dropped = append(dropped, text)
		}
	}
	for _, n := range kept {
		if n > 0 {
			return nil // the retry added something of its own
		}
	}
	return dropped
}

// compact is a JSON value written without spaces, objects' keys sorted.
func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
