package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// Labels says where the upload's outcome labels came from and how they split its
// conversations.
type Labels struct {
	// Field names the field that labelled the most conversations, as the file wrote it:
	// "metadata.success" for the JSON formats, "column success" for a CSV column,
	// "scores.csat" for a Langfuse score. It is "" when no conversation has a label.
	Field string
	// Failed, Succeeded and Unlabelled count the conversations handed to emit.
	Failed, Succeeded, Unlabelled int
}

// labeller reads each conversation's outcome and keeps, for the whole file, what was
// labelled from which field and which fields held values it could not read. Unreadable
// values become one warning per field at the end, not one per conversation.
type labeller struct {
	failed, succeeded int
	used              map[string]*fieldUse // lower-cased field -> use
	usedOrder         []string
	bad               map[string]*fieldUse
	badOrder          []string
}

// fieldUse counts one field's conversations and remembers where it was first met.
type fieldUse struct {
	field   string // as first written
	loc     locale.Text
	example string
	count   int
}

// read returns the label of one conversation from its candidates and records it.
func (l *labeller) read(loc locale.Text, cands []labelCandidate) transcript.Label {
	if len(cands) == 0 {
		return transcript.LabelNone
	}
	ch := chooseLabel(cands)
	for _, u := range ch.unreadable {
		l.bad, l.badOrder = note(l.bad, l.badOrder, u.field, loc, u.value.example())
	}
	switch ch.label {
	case transcript.LabelFailed:
		l.failed++
	case transcript.LabelSucceeded:
		l.succeeded++
	default:
		return ch.label
	}
	l.used, l.usedOrder = note(l.used, l.usedOrder, ch.field, loc, "")
	return ch.label
}

// note counts one more conversation for field.
func note(m map[string]*fieldUse, order []string, field string, loc locale.Text, example string) (map[string]*fieldUse, []string) {
	if m == nil {
		m = map[string]*fieldUse{}
	}
	k := strings.ToLower(field)
	u := m[k]
	if u == nil {
		u = &fieldUse{field: field, loc: loc, example: example}
		m[k] = u
		order = append(order, k)
	}
	u.count++
	return m, order
}

// finish fills the summary's labels and adds the aggregated warnings.
func (l *labeller) finish(p *parser) {
	p.sum.Labels = Labels{Failed: l.failed, Succeeded: l.succeeded,
		Unlabelled: p.sum.Conversations - l.failed - l.succeeded}
	used := make([]*fieldUse, 0, len(l.usedOrder))
	for _, k := range l.usedOrder {
		used = append(used, l.used[k])
	}
	sort.SliceStable(used, func(i, j int) bool { return used[i].count > used[j].count })
	if len(used) > 0 {
		p.sum.Labels.Field = used[0].field
	}
	if len(used) > 1 {
		parts := make([]locale.Text, len(used))
		for i, u := range used {
			parts[i] = locale.Msg("ingest.label_field", "Field", u.field, "Count", u.count)
		}
		p.warn(locale.Msg("ingest.outcome_labels"), "ingest.labels_read_from", "Fields", locale.List(parts...))
	}
	for _, k := range l.badOrder {
		u := l.bad[k]
		p.warn(u.loc, "ingest.label_unreadable", "Field", u.field, "Example", u.example, "Count", u.count)
	}
}

// example renders a value for a warning.
func (v labelValue) example() string {
	switch v.kind {
	case valueBool:
		return fmt.Sprint(v.flag)
	case valueNumber:
		if v.text != "" {
			return quote(v.text)
		}
		return fmt.Sprint(v.num)
	}
	return quote(v.text)
}

// metadataCandidates returns the outcome fields of a metadata object, prefixed as the
// person sees them ("metadata.success"). Only top-level keys count; null and empty
// values are absent.
func metadataCandidates(prefix string, raw json.RawMessage) []labelCandidate {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var out []labelCandidate
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		if _, _, ok := labelRank(key); !ok {
			continue
		}
		if val, present := jsonLabelValue(v); present {
			out = append(out, labelCandidate{field: prefix + key, key: key, value: val})
		}
	}
	return out
}

// jsonLabelValue converts a JSON value; present is false for null and "".
func jsonLabelValue(v json.RawMessage) (labelValue, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return labelValue{}, false
	}
	switch v[0] {
	case 'n':
		return labelValue{}, false
	case 't', 'f':
		return labelValue{kind: valueBool, flag: v[0] == 't'}, true
	case '"':
		s := jsonString(v)
		return labelValue{text: s}, strings.TrimSpace(s) != ""
	case '{', '[':
		return labelValue{text: cutText(string(v))}, true
	}
	n, ok := numberText(string(v))
	if !ok {
		return labelValue{text: string(v)}, true
	}
	return labelValue{kind: valueNumber, num: n}, true
}

// textCandidate is a candidate from a CSV cell or another plain text value; present is
// false for an empty cell.
func textCandidate(field, key, text string) (labelCandidate, bool) {
	if strings.TrimSpace(text) == "" {
		return labelCandidate{}, false
	}
	return labelCandidate{field: field, key: key, value: labelValue{text: cutText(text)}}, true
}

// cutText keeps the first 64 bytes of a value kept for label reading: longer values are
// never outcomes, and the value is only quoted in a warning.
func cutText(s string) string {
	const keep = 64
	if len(s) <= keep {
		return s
	}
	i := keep
	for i > 0 && !isRuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
