package locale

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is words for people that can be written in any locale, kept by what they are
// rather than in one language: a literal shown as it is (a quote from a conversation, a
// tool's name, what a model wrote), a number, a share, a catalog message with its
// arguments (themselves Texts), or a list of Texts joined by a catalog message (the
// sentences of a description, "a, b and c"). An analysis stores the Text beside the
// English it wrote, so a reader in another language reads the same finding in theirs.
//
// In JSON a literal is a string, a number a number, a share {"share": 0.25}, a message
// {"id": ..., "args": {...}}, a list {"join": ..., "last": ..., "items": [...]} and a
// change of the first letter's case {"case": "upper", "of": ...}.
type Text struct {
	lit   string
	num   *float64
	share *float64
	id    string
	args  map[string]Text
	join  string // the message joining two items, A and B
	last  string // the message joining the last item, when it is not join
	items []Text
	// casing changes the first letter of of, written: "upper" or "lower".
	casing string
	of     *Text
}

// Lit is s as it is, in every locale.
func Lit(s string) Text { return Text{lit: s} }

// Number is n, written with the locale's digit grouping.
func Number[T ~int | ~int64 | ~float64](n T) Text {
	f := float64(n)
	return Text{num: &f}
}

// Share is a share 0..1, written as a percentage (Localizer.Percent).
func Share(f float64) Text { return Text{share: &f} }

// Msg is catalog message id with its arguments, as name and value pairs: a value is a
// Text, a string (a literal) or a number.
func Msg(id string, args ...any) Text {
	t := Text{id: id}
	for i := 0; i+1 < len(args); i += 2 {
		name, _ := args[i].(string)
		if t.args == nil {
			t.args = map[string]Text{}
		}
		t.args[name] = textOf(args[i+1])
	}
	return t
}

// textOf turns a message argument into a Text.
func textOf(v any) Text {
	switch v := v.(type) {
	case Text:
		return v
	case string:
		return Lit(v)
	case int:
		return Number(v)
	case int64:
		return Number(v)
	case float64:
		return Number(v)
	}
	return Lit(fmt.Sprint(v))
}

// Join joins items two at a time with message join, which reads them as A and B.
func Join(join string, items ...Text) Text { return Text{join: join, items: items} }

// Sentences joins sentences as the locale runs them on: with a space in English, none
// in Chinese.
func Sentences(items ...Text) Text { return Join("join.sentences", items...) }

// List joins items as "a, b and c" in English and "a、b和c" in Chinese.
func List(items ...Text) Text { return Text{join: "join.comma", last: "join.and", items: items} }

// Arg is the literal of t's argument name ("" when it has none): what a caller that
// made the message may read back from it.
func (t Text) Arg(name string) string { return t.args[name].lit }

// UpperFirst is t with its first letter upper-case, for t at the start of a sentence
// (a language without cases is written as it is).
func UpperFirst(t Text) Text { return Text{casing: "upper", of: &t} }

// LowerFirst is t with its first letter lower-case when it starts a sentence that now
// goes on another's ("In one of them, the agent…"): only a capital followed by a small
// letter is lowered, so "API" and "I" stay as they are.
func LowerFirst(t Text) Text { return Text{casing: "lower", of: &t} }

// IsZero reports whether t holds nothing: a Text never set.
func (t Text) IsZero() bool {
	return t.lit == "" && t.num == nil && t.share == nil && t.id == "" && t.join == "" && len(t.items) == 0 && t.of == nil
}

// recase changes the first letter of s as casing says.
func recase(s, casing string) string {
	first, size := utf8.DecodeRuneInString(s)
	switch {
	case size == 0:
		return s
	case casing == "upper":
		return string(unicode.ToUpper(first)) + s[size:]
	}
	if second, _ := utf8.DecodeRuneInString(s[size:]); unicode.IsUpper(first) && unicode.IsLower(second) {
		return string(unicode.ToLower(first)) + s[size:]
	}
	return s
}

// Text writes t in the localizer's language.
func (l *Localizer) Text(t Text) string {
	switch {
	case t.of != nil:
		return recase(l.Text(*t.of), t.casing)
	case t.num != nil:
		return l.Num(*t.num)
	case t.share != nil:
		return l.Percent(*t.share)
	case t.id != "":
		args := make([]any, 0, 2*len(t.args))
		for name, a := range t.args {
			if name == "Count" && a.num != nil {
				args = append(args, name, *a.num) // the plural form is the number's
				continue
			}
			args = append(args, name, l.Text(a))
		}
		return l.T(t.id, args...)
	case t.join != "":
		if len(t.items) == 0 {
			return ""
		}
		out := l.Text(t.items[0])
		for i, item := range t.items[1:] {
			join := t.join
			if t.last != "" && i == len(t.items)-2 {
				join = t.last
			}
			out = l.T(join, "A", out, "B", l.Text(item))
		}
		return out
	}
	return t.lit
}

// MessageIDs lists the catalog messages t uses, itself and its parts: for tests that
// hold stored texts to the catalog, and for a template that reads which sentences a
// finding says.
func (t Text) MessageIDs() []string {
	var ids []string
	if t.id != "" {
		ids = append(ids, t.id)
	}
	if t.join != "" {
		ids = append(ids, t.join)
	}
	if t.last != "" {
		ids = append(ids, t.last)
	}
	names := make([]string, 0, len(t.args))
	for name := range t.args {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ids = append(ids, t.args[name].MessageIDs()...)
	}
	for _, item := range t.items {
		ids = append(ids, item.MessageIDs()...)
	}
	if t.of != nil {
		ids = append(ids, t.of.MessageIDs()...)
	}
	return ids
}

// textJSON is the object form of a Text that is not a literal or a number.
type textJSON struct {
	ID    string          `json:"id,omitempty"`
	Args  map[string]Text `json:"args,omitempty"`
	Share *float64        `json:"share,omitempty"`
	Join  string          `json:"join,omitempty"`
	Last  string          `json:"last,omitempty"`
	Items []Text          `json:"items,omitempty"`
	Case  string          `json:"case,omitempty"`
	Of    *Text           `json:"of,omitempty"`
}

// MarshalJSON writes t in its JSON form (see Text).
func (t Text) MarshalJSON() ([]byte, error) {
	switch {
	case t.num != nil:
		return json.Marshal(*t.num)
	case t.id == "" && t.join == "" && t.share == nil && t.of == nil:
		return json.Marshal(t.lit)
	}
	return json.Marshal(textJSON{ID: t.id, Args: t.args, Share: t.share, Join: t.join, Last: t.last, Items: t.items, Case: t.casing, Of: t.of})
}

// UnmarshalJSON reads t from its JSON form.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*t = Text{}
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("locale: text: %w", err)
		}
		*t = Lit(s)
	case b[0] == '{':
		var o textJSON
		if err := json.Unmarshal(b, &o); err != nil {
			return fmt.Errorf("locale: text: %w", err)
		}
		*t = Text{id: o.ID, args: o.Args, share: o.Share, join: o.Join, last: o.Last, items: o.Items, casing: o.Case, of: o.Of}
	default:
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("locale: text: %w", err)
		}
		*t = Number(f)
	}
	return nil
}

// String is t for logs and test failures: its literal, or its message keys.
func (t Text) String() string {
	if ids := t.MessageIDs(); len(ids) > 0 {
		return "[" + strings.Join(ids, " ") + "]"
	}
	if t.num != nil {
		return fmt.Sprint(*t.num)
	}
	return t.lit
}
