package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/search"
)

// mostSevere is the highest severity a finding has (analyzer.Finding: 1..5).
const mostSevere = 5

// conversationFilter reads the conversation list's query: its filters, its sort and the
// cursor of the page. It returns the form as it was sent, for the page to show again,
// and a sentence for the first value it cannot use (zero when it can use them all).
func conversationFilter(q url.Values) (store.ConversationFilter, pages.ConversationForm, locale.Text) {
	form := pages.ConversationForm{
		Cluster: strings.TrimSpace(q.Get("cluster")), Driver: strings.TrimSpace(q.Get("driver")),
		Category: q.Get("category"), MinSeverity: q.Get("min_severity"), Label: q.Get("label"),
		Risk: q.Get("risk"), Query: strings.TrimSpace(q.Get("q")), Sort: q.Get("sort"),
	}
	f := store.ConversationFilter{Sort: store.SortFailure}
	if form.Sort != "" && form.Sort != sortToLabel {
		f.Sort = store.ConversationSort(form.Sort)
		if !slices.Contains(store.Sorts(), f.Sort) {
			return f, form, locale.Msg("filter_refused.sort", "Value", strconv.Quote(form.Sort))
		}
	}
	var msg locale.Text
	if f.Cluster, msg = index(form.Cluster, "filter_refused.issue"); !msg.IsZero() {
		return f, form, msg
	}
	if f.Driver, msg = index(form.Driver, "filter_refused.driver"); !msg.IsZero() {
		return f, form, msg
	}
	if form.Category != "" {
		if !slices.Contains(analyzer.Categories(), form.Category) {
			return f, form, locale.Msg("filter_refused.category", "Value", strconv.Quote(form.Category))
		}
		f.Category = &form.Category
	}
	if form.MinSeverity != "" {
		n, err := strconv.Atoi(form.MinSeverity)
		if err != nil || n < 1 || n > mostSevere {
			return f, form, locale.Msg("filter_refused.severity", "Max", strconv.Itoa(mostSevere), "Value", strconv.Quote(form.MinSeverity))
		}
		sev := int32(n)
		f.MinSeverity = &sev
	}
	if form.Label != "" {
		if form.Label != "failed" && form.Label != "succeeded" {
			return f, form, locale.Msg("filter_refused.label", "Value", strconv.Quote(form.Label))
		}
		if form.Sort == sortToLabel {
			return f, form, locale.Msg("filter_refused.to_label_with_label")
		}
		f.Label = &form.Label
	}
	if form.Risk != "" {
		if !slices.Contains(risk.Kinds(), form.Risk) {
			return f, form, locale.Msg("filter_refused.risk", "Value", strconv.Quote(form.Risk))
		}
		f.Risk = &form.Risk
	}
	if form.Query != "" {
		if n := utf8.RuneCountInString(form.Query); n > search.MaxQueryRunes {
			return f, form, locale.Msg("filter_refused.search_long", "N", n, "Max", search.MaxQueryRunes)
		}
		if f.Query = search.Query(form.Query, true); f.Query == "" {
			return f, form, locale.Msg("filter_refused.search_empty", "Value", strconv.Quote(form.Query))
		}
	}
	if after := q.Get("after"); after != "" {
		c, err := store.ParseConversationCursor(f.Sort, after)
		if form.Sort == sortToLabel {
			c, err = toLabelCursor(after)
		}
		if err != nil {
			return f, form, locale.Msg("filter_refused.cursor")
		}
		f.After = &c
	}
	return f, form, locale.Text{}
}

// index reads the index of a cluster or a driver; refusal is the message that says
// it must be a number.
func index(s, refusal string) (*int32, locale.Text) {
	if s == "" {
		return nil, locale.Text{}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return nil, locale.Msg(refusal, "Value", strconv.Quote(s))
	}
	i := int32(n)
	return &i, locale.Text{}
}

// toLabelCursor reads where a page of the list most useful to label starts: after the
// conversation whose seq it is, in the list's order.
func toLabelCursor(after string) (store.ConversationCursor, error) {
	seq, err := strconv.ParseInt(after, 10, 32)
	if err != nil || seq < 1 {
		return store.ConversationCursor{}, store.ErrBadConversationCursor
	}
	return store.ConversationCursor{Seq: int32(seq)}, nil
}
