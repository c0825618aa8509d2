package report

import (
	"iter"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// Lists are a report's long lists — every finding, conversation and warning — read a
// page at a time from the snapshot the rest of the report came from (store.ReportLists),
// so a download writes them as it reads them: its memory is a page, not the task.
type Lists interface {
	Findings() iter.Seq2[dbsqlc.ListTaskFindingsRow, error]
	Conversations() iter.Seq2[dbsqlc.ListTaskConversationSummariesRow, error]
	Warnings() iter.Seq2[dbsqlc.TaskWarning, error]
}

// Stream builds the report from the rows store.WithTaskReport passes (ReportPage detail
// with the clusters' conversations), its findings, conversations and warnings left to
// lists: the downloads range over AllFindings,
// AllConversations and AllWarnings, which read them as they go. Use the report only
// inside the snapshot lists reads from (store.WithTaskReport's callback).
func Stream(rows store.ReportRows, lists Lists, now time.Time, l *locale.Localizer) (Report, error) {
	r, err := Build(rows, now, l)
	if err != nil {
		return Report{}, err
	}
	r.lists = lists
	return r, nil
}

// AllFindings yields every finding: Findings, or for a streamed report each as it is
// read.
func (r Report) AllFindings() iter.Seq2[Finding, error] {
	if r.lists == nil {
		return values(r.Findings)
	}
	return converted(r.lists.Findings(), func(row dbsqlc.ListTaskFindingsRow) (Finding, error) {
		return buildFinding(row, r.ranks)
	})
}

// AllConversations yields every conversation's line: Conversations, or for a streamed
// report each as it is read.
func (r Report) AllConversations() iter.Seq2[Conversation, error] {
	if r.lists == nil {
		return values(r.Conversations)
	}
	return converted(r.lists.Conversations(), buildConversation)
}

// AllWarnings yields every warning: Warnings, or for a streamed report each as it is
// read (Warnings holds only the first ones then, as the task page shows them).
func (r Report) AllWarnings() iter.Seq2[Warning, error] {
	if r.lists == nil {
		return values(r.Warnings)
	}
	return converted(r.lists.Warnings(), func(w dbsqlc.TaskWarning) (Warning, error) { return buildWarning(w), nil })
}

// streamed reports whether the long lists are read as they go rather than held.
func (r Report) streamed() bool { return r.lists != nil }

func values[T any](s []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, v := range s {
			if !yield(v, nil) {
				return
			}
		}
	}
}

// converted yields each row of rows turned into a value by build, stopping at the
// first error.
func converted[R, T any](rows iter.Seq2[R, error], build func(R) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for row, err := range rows {
			var v T
			if err == nil {
				v, err = build(row)
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}
