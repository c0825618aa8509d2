package offline

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// changeWords are the words a user asks for a change with, by the kind of change a
// write tool makes (the first word of its name, see changeKind): "please cancel the
// whole order" asks for cancel_pending_order, "could you add a bag" for
// update_reservation_baggages. English words are matched whole, in the forms a request
// takes (base form and noun); Chinese ones anywhere.
var changeWords = map[string][]string{
	"cancel":   {"cancel", "cancellation", "取消", "退订"},
	"book":     {"book", "reserve", "预订", "预定", "订票", "订机票", "想订", "要订", "帮我订", "订个", "订张", "订一"},
	"return":   {"return", "send back", "refund", "退货", "退回", "退掉", "退款"},
	"exchange": {"exchange", "swap", "replace", "换货", "换成", "更换", "调换"},
	"refund":   {"refund", "money back", "退款", "退钱"},
	"pay":      {"pay", "purchase", "buy", "charge", "付款", "支付", "购买", "买"},
	"send":     {"send", "发送", "寄"},
	"change": {"change", "modify", "update", "switch", "upgrade", "downgrade", "add", "remove", "edit", "move",
		"修改", "更改", "改成", "改为", "改到", "改签", "换成", "升级", "降级", "添加", "加上", "加一", "删除", "去掉"},
}

// changeKind is the kind of change a write tool makes, for changeWords: its first
// word, with the verbs of a generic edit (update, modify, set, add…) taken as one kind.
func changeKind(tool string) string {
	switch w := firstWord(tool); w {
	case "update", "modify", "change", "edit", "set", "add", "remove", "delete", "upgrade", "downgrade", "apply",
		"reschedule", "schedule", "assign", "reset", "activate", "deactivate", "replace":
		return "change"
	case "purchase", "charge", "place":
		return "pay"
	default:
		return w
	}
}

// consentMarkers are the phrase sets the consent rules read, built once.
type consentMarkers struct {
	kinds     map[string]textmatch.PhraseSet // changeWords by kind, plus the tool's own word for any other
	askActing textmatch.PhraseSet            // a question that asks the agent to act: "could you", "帮我"
	negator   textmatch.PhraseSet            // words that deny the verb after them
}

func newConsentMarkers() consentMarkers {
	kinds := map[string]textmatch.PhraseSet{}
	for kind, words := range changeWords {
		kinds[kind] = textmatch.NewPhraseSet(words...)
	}
	return consentMarkers{
		kinds: kinds,
		askActing: textmatch.NewPhraseSet("can you", "could you", "would you", "will you", "can we", "could we", "please",
			"i'd like", "i would like", "i want", "i need", "帮我", "帮忙", "给我", "请", "麻烦", "我要", "我想"),
		negator: textmatch.NewPhraseSet("not", "don't", "do not", "doesn't", "never", "no need to", "won't", "didn't",
			"不要", "不用", "别", "不想", "不需要", "没有"),
	}
}

// wordsOf is the phrase set a user names a change of tool's kind with.
func (c consentMarkers) wordsOf(tool string) textmatch.PhraseSet {
	if ps, ok := c.kinds[changeKind(tool)]; ok {
		return ps
	}
	return textmatch.NewPhraseSet(changeKind(tool))
}

// asksFor reports whether a user turn asks for a change of tool's kind in its own
// words: it names the change ("please cancel the whole order", "I'd like to return
// everything", "帮我取消订单") in a sentence that is neither a condition ("if I cancel")
// nor denied ("I don't want to cancel"), and that is not a question about it ("can I
// return it?", "how much is an upgrade?") unless the question asks the agent to act
// ("could you add a bag?").
func (a *Analyzer) asksFor(f textmatch.Folded, tool string) bool {
	for m := range a.consent.wordsOf(tool).All(f) {
		text := f.Orig
		s, e := sentenceStart(text, m.Start), sentenceEnd(text, m.End)
		sentence := textmatch.Fold(text[s:e])
		if a.conditional(text, m.Start) || a.denied(text[s:m.Start]) {
			continue
		}
		if strings.ContainsAny(text[m.End:e], "?？") || strings.HasSuffix(strings.TrimSpace(text[s:e]), "吗") {
			if !a.consent.askActing.Contains(sentence) {
				continue
			}
		}
		return true
	}
	return false
}

// denied reports whether the last few words before a verb deny it: the last three
// words, or in Chinese, which has no spaces, the last six characters.
func (a *Analyzer) denied(before string) bool {
	words := strings.Fields(before)
	tail := strings.Join(words[max(0, len(words)-3):], " ")
	if len(words) > 0 && strings.IndexFunc(words[len(words)-1], isHan) >= 0 {
		r := []rune(words[len(words)-1])
		tail = string(r[max(0, len(r)-6):])
	}
	return a.consent.negator.Contains(textmatch.Fold(tail))
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// recaps reports whether an agent's message describes the change a write makes: it
// names the change (changeWords, in any form: "changing", "exchanged") or one of the
// write's argument values (an order id, a flight number), and it is not a menu of
// options ("1. … 2. …", "Option 1"), which offers several changes and describes none.
func (a *Analyzer) recaps(v *view, f textmatch.Folded, c call) bool {
	if listsOptions(f.Orig) {
		return false
	}
	if a.consent.wordsOf(c.name).Contains(f) || a.namesStem(v, f.Text, c.name) {
		return true
	}
	for _, value := range argumentValues(c.args) {
		if strings.Contains(f.Text, textmatch.FoldString(value)) {
			return true
		}
	}
	return false
}

// namesStem reports whether text has a word of the same stem as one of the English
// words a change of tool's kind is named with.
func (a *Analyzer) namesStem(v *view, text, tool string) bool {
	words, ok := changeWords[changeKind(tool)]
	if !ok {
		words = []string{changeKind(tool)}
	}
	stems := map[string]bool{}
	for _, w := range words {
		if !strings.Contains(w, " ") && isASCII(w) {
			stems[v.stems.Stem(w)] = true
		}
	}
	for t := range textmatch.EachTerm(text) {
		if stems[v.stems.Stem(t)] {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) < 0
}

// optionLine is a line that opens a numbered item: "1.", "2)", "**1.", "- 2.".
var optionLine = regexp.MustCompile(`(?m)^[\s*#>-]*(?:\d{1,2}[.)、]|option \d|选项[一二三四五六七八九\d]|方案[一二三四五六七八九\d])`)

// optionWord names a numbered option anywhere in a line: "Option 2", "方案二".
var optionWord = regexp.MustCompile(`option \d|选项[一二三四五六七八九\d]|方案[一二三四五六七八九\d]`)

// listsOptions reports whether text offers at least two numbered options.
func listsOptions(text string) bool {
	lower := strings.ToLower(text)
	return len(optionLine.FindAllStringIndex(lower, 2)) >= 2 || len(optionWord.FindAllStringIndex(lower, 2)) >= 2
}

// argumentValues are the string values of a tool call's JSON arguments that are long
// enough to name something (three runes or more), at any depth, keys in order.
func argumentValues(args string) []string {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case string:
			if utf8.RuneCountInString(t) >= 3 {
				out = append(out, t)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k])
			}
		}
	}
	walk(v)
	return out
}

// asksUser reports whether an agent's message asks the user something: a question
// mark, or a Chinese question particle ending a sentence.
func asksUser(text string) bool {
	if strings.ContainsAny(text, "?？") {
		return true
	}
	t := strings.TrimRight(strings.TrimSpace(text), "。.!！~")
	return strings.HasSuffix(t, "吗") || strings.HasSuffix(t, "呢")
}

// refuses reports whether a user turn opens with a negation ("No, wait", "不，先别"):
// whatever it goes on to say, it takes back what the agent proposed.
func (a *Analyzer) refuses(f textmatch.Folded) bool {
	neg, ok := a.m.negation.Find(f)
	return ok && strings.TrimSpace(f.Orig[:neg.Start]) == ""
}

// changedArgument is the first top-level argument of a retried call whose value differs
// from the failed call's (in the order the retry writes them), and the text of it in
// each call's arguments, "key": value as written — exact substrings of the calls, so
// they quote what the agent had and what it changed on its own. A text is empty when
// the call does not write it plainly (or the failed call had no such argument); key is
// empty when the arguments are not JSON objects or none changed.
func changedArgument(failed, retry string) (key, before, after string) {
	var was, is map[string]json.RawMessage
	if json.Unmarshal([]byte(failed), &was) != nil || json.Unmarshal([]byte(retry), &is) != nil {
		return "", "", ""
	}
	for _, k := range keysInOrder(retry) {
		if sameArgs(string(was[k]), string(is[k])) {
			continue
		}
		return k, argumentText(failed, k, was[k]), argumentText(retry, k, is[k])
	}
	return "", "", ""
}

// argumentText is `"key": value` as args writes it, "" when it is not written so.
func argumentText(args, key string, value json.RawMessage) string {
	if len(value) == 0 {
		return ""
	}
	quotedKey, _ := json.Marshal(key)
	at := strings.Index(args, string(quotedKey))
	if at < 0 {
		return ""
	}
	end := strings.Index(args[at:], string(value))
	if end < 0 {
		return ""
	}
	return args[at : at+end+len(value)]
}

// keysInOrder is the top-level keys of a JSON object in the order they are written.
func keysInOrder(obj string) []string {
	dec := json.NewDecoder(strings.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, ok := t.(string)
		if !ok {
			return keys
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}
