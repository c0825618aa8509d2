package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/checkup-dev/checkup/db/taskstate"
)

// WriteLabelsCSV writes labels.csv: one row per kept conversation, in upload order, with
// its outcome label and where it came from (the upload, or its owner on the pages or
// through the API), what the owner said and when (which differs from the label when the
// upload's won), and its failure score with the outcome it estimates: the labels to take
// to a spreadsheet or to another tool. It starts with the byte order mark, like
// actions.csv.
func WriteLabelsCSV(w io.Writer, r Report) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return fmt.Errorf("report: labels.csv: %w", err)
	}
	cw := csv.NewWriter(w)
	write := func(cells ...string) { _ = cw.Write(neutralise(cells)) }
	write("conversation_seq", "conversation_id", "label", "label_source", "reviewed_label", "reviewed_at",
		"failure_score", "estimated_outcome", "link")
	for c, err := range r.AllConversations() {
		if err != nil {
			return fmt.Errorf("report: labels.csv: %w", err)
		}
		if c.QCStatus != taskstate.QCKept {
			continue
		}
		score, reviewedAt := "", ""
		if c.FailureScore != nil {
			score = num(*c.FailureScore)
		}
		if c.ReviewedAt != nil {
			reviewedAt = c.ReviewedAt.UTC().Format(time.RFC3339)
		}
		write(strconv.Itoa(c.Seq), c.ID, text(c.Label), text(c.LabelSource), text(c.ReviewedLabel), reviewedAt,
			score, c.EstimatedOutcome, ConversationLink(r.BaseURL, r.Task.ID, c.Seq, 0))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: labels.csv: %w", err)
	}
	return nil
}

// text is an optional string's cell: empty for none.
func text(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
