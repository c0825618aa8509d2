package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/report"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// conversationShow is one conversation of a task: its transcript with the quoted
// turns highlighted, its findings and its checks.
func (s *Server) conversationShow(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 32)
	if err != nil || seq < 1 {
		return errNoTask
	}
	rows, err := s.store.Conversation(c.Request().Context(), id, int32(seq), auth.OwnerFrom(c))
	if err != nil {
		return s.conversationError(c, id, seq, err)
	}
	d, err := report.DecodeConversation(rows.Conversation, rows.Findings)
	if err != nil {
		return err
	}
	conv := rows.Conversation
	v := pages.ConversationView{
		TaskID: id.String(), TaskTitle: rows.Task.Title, Seq: int(conv.Seq), ExternalID: conv.ExternalID,
		QCStatus: conv.QcStatus, QCReason: conv.QcReason, DiagnosisStatus: conv.DiagnosisStatus,
		Flags: d.Flags, Findings: d.Findings, Standings: standings(rows.Clusters),
		Turns: pages.Messages(d.Messages, d.Findings, d.Flags),
	}
	if d.Diagnosis != nil {
		v.Outcome, v.Summary = d.Diagnosis.Outcome, d.Diagnosis.Summary
		v.FailedTurn = d.Diagnosis.FailedTurn
		score := d.Diagnosis.FailureScore
		v.FailureScore = &score
	}
	if conv.Label != nil {
		v.Label = *conv.Label
	}
	return render(c, http.StatusOK, pages.ConversationShow(s.page(c, fmt.Sprintf("Conversation %d · %s", conv.Seq, rows.Task.Title)), v))
}

// standings is the word on each of the conversation's issues, by cluster index.
func standings(clusters []dbsqlc.ListConversationClusterStandingsRow) map[int]pages.Standing {
	out := make(map[int]pages.Standing, len(clusters))
	for _, c := range clusters {
		switch {
		case c.PolicyOverruled:
			out[int(c.Idx)] = pages.StandingOverruled
		case !c.Expected:
			out[int(c.Idx)] = pages.StandingIssue
		case c.ExpectedBy != nil && *c.ExpectedBy == cluster.ExpectedByOwner:
			out[int(c.Idx)] = pages.StandingOwner
		default:
			out[int(c.Idx)] = pages.StandingPolicy
		}
	}
	return out
}

// conversationError says which of the two is missing when a conversation is not found:
// the owner's task without that conversation, or the task itself (which is also what
// another user's task looks like).
func (s *Server) conversationError(c echo.Context, id uuid.UUID, seq int64, err error) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, terr := s.store.Task(c.Request().Context(), id, auth.OwnerFrom(c)); terr != nil {
		return terr
	}
	return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("There is no conversation %d in this diagnosis.", seq))
}
