// Package components holds the parts the task pages are built from: badges, the live
// progress, the Action cards, the funnel, the risk summary and the transcript. Their
// words, numbers and times are written by the Localizer in the request's context
// (locale.From).
package components

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/report"
)

// ISOTime is the machine-readable form for <time datetime>.
func ISOTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// TaskURL is the task page.
func TaskURL(id string) templ.SafeURL { return templ.SafeURL("/tasks/" + id) }

// TaskPath is a path under the task, e.g. TaskPath(id, "report.json").
func TaskPath(id, rest string) string { return "/tasks/" + id + "/" + rest }

// ConversationURL links to a turn of a conversation of a task.
func ConversationURL(taskID string, seq, turn int) templ.SafeURL {
	return templ.SafeURL(report.ConversationLink("", taskID, seq, turn))
}

// ConversationInListURL links to a conversation of a task opened from the conversation
// list whose query (encoded) is listQuery.
func ConversationInListURL(taskID string, seq int, listQuery string) templ.SafeURL {
	u := report.ConversationLink("", taskID, seq, 0)
	if listQuery != "" {
		u += "?" + listQuery
	}
	return templ.SafeURL(u)
}

// andOthers ends the sentence that quotes policy, the first of n+1 policy sentences.
func andOthers(l *locale.Localizer, policy string, n int) string {
	if n == 0 {
		return fullStop(l, policy)
	}
	return l.N("policy.and_others", n)
}

// fullStop ends a sentence whose last words are the quote q: nothing more when q ends
// one already (“Handoffs cost us money.” needs no second stop).
func fullStop(l *locale.Localizer, q string) string {
	q = strings.TrimSpace(q)
	if r, _ := utf8.DecodeLastRuneInString(q); strings.ContainsRune(".!?…。！？", r) {
		return ""
	}
	return l.T("policy.full_stop")
}
