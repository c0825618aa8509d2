package web

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
// and a sentence for the first value it cannot use.
func conversationFilter(q url.Values) (store.ConversationFilter, pages.ConversationForm, string) {
	form := pages.ConversationForm{
		Cluster: strings.TrimSpace(q.Get("cluster")), Driver: strings.TrimSpace(q.Get("driver")),
		Category: q.Get("category"), MinSeverity: q.Get("min_severity"), Label: q.Get("label"),
		Risk: q.Get("risk"), Query: strings.TrimSpace(q.Get("q")), Sort: q.Get("sort"),
	}
	f := store.ConversationFilter{Sort: store.SortFailure}
	if form.Sort != "" && form.Sort != sortToLabel {
		f.Sort = store.ConversationSort(form.Sort)
		if !slices.Contains(store.Sorts(), f.Sort) {
			return f, form, fmt.Sprintf("%q is not a sort of this list: sort by failure, turns, severity or to_label.", form.Sort)
		}
	}
	var msg string
	if f.Cluster, msg = index(form.Cluster, "issue"); msg != "" {
		return f, form, msg
	}
	if f.Driver, msg = index(form.Driver, "failure driver"); msg != "" {
		return f, form, msg
	}
	if form.Category != "" {
		if !slices.Contains(analyzer.Categories(), form.Category) {
			return f, form, fmt.Sprintf("%q is not a finding category.", form.Category)
		}
		f.Category = &form.Category
	}
	if form.MinSeverity != "" {
		n, err := strconv.Atoi(form.MinSeverity)
		if err != nil || n < 1 || n > mostSevere {
			return f, form, fmt.Sprintf("The lowest severity is a number from 1 to %d, not %q.", mostSevere, form.MinSeverity)
		}
		sev := int32(n)
		f.MinSeverity = &sev
	}
	if form.Label != "" {
		if form.Label != "failed" && form.Label != "succeeded" {
			return f, form, fmt.Sprintf("The outcome label is failed or succeeded, not %q.", form.Label)
		}
		if form.Sort == sortToLabel {
			return f, form, "The conversations most useful to label are those without a label: leave the outcome label at Any."
		}
		f.Label = &form.Label
	}
	if form.Risk != "" {
		if !slices.Contains(risk.Kinds(), form.Risk) {
			return f, form, fmt.Sprintf("%q is not a kind of risk flag.", form.Risk)
		}
		f.Risk = &form.Risk
	}
	if form.Query != "" {
		if n := utf8.RuneCountInString(form.Query); n > search.MaxQueryRunes {
			return f, form, fmt.Sprintf("The search is %d characters long; keep it to %d.", n, search.MaxQueryRunes)
		}
		if f.Query = search.Query(form.Query, true); f.Query == "" {
			return f, form, fmt.Sprintf("The search %q has no words to look for.", form.Query)
		}
	}
	if after := q.Get("after"); after != "" {
		c, err := store.ParseConversationCursor(f.Sort, after)
		if form.Sort == sortToLabel {
			c, err = toLabelCursor(after)
		}
		if err != nil {
			return f, form, "This page's address is not one the list made; start again from the first page."
		}
		f.After = &c
	}
	return f, form, ""
}

// index reads the index of a cluster or a driver.
func index(s, what string) (*int32, string) {
	if s == "" {
		return nil, ""
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return nil, fmt.Sprintf("The %s is given by its number (0, 1, 2…), not %q.", what, s)
	}
	i := int32(n)
	return &i, ""
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
