// Package components holds the parts the task pages are built from: badges, the live
// progress, the Action cards, the funnel, the risk summary and the transcript.
package components

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/checkup-dev/checkup/report"
)

// FormatTime shows a time to people, in UTC so every reader sees the same value.
func FormatTime(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// FormatAgo shows a recent time relative to now ("just now" under a minute, "2 min
// ago", "3 h ago", "2 days ago" within a week), which a list of uploads is read by,
// and an older one as FormatTime.
func FormatAgo(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return FormatTime(t)
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return Plural(int(d/(24*time.Hour)), "day", "days") + " ago"
	}
	return FormatTime(t)
}

// FormatSeconds is FormatTime to the second, for a tooltip where uploads minutes apart
// must be told apart.
func FormatSeconds(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04:05 UTC") }

// ISOTime is the machine-readable form for <time datetime>.
func ISOTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// FormatDuration shows a duration rounded to what people care about.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under a second"
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

// Count formats a whole number with thousands separators: 12,345.
func Count[T ~int | ~int32 | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Plural picks the singular or plural noun for n: "1 conversation", "3 conversations".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

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
func andOthers(policy string, n int) string {
	if n == 0 {
		return fullStop(policy)
	}
	return " and " + Plural(n, "other", "others") + "."
}

// fullStop ends a sentence whose last words are the quote q: nothing more when q ends
// one already (“Handoffs cost us money.” needs no second stop).
func fullStop(q string) string {
	q = strings.TrimSpace(q)
	if r, _ := utf8.DecodeLastRuneInString(q); strings.ContainsRune(".!?…。！？", r) {
		return ""
	}
	return "."
}
