package web

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/review"
)

// conversationShow is one conversation of a task: its transcript with the quoted
// turns highlighted, its findings and its checks.
func (s *Server) conversationShow(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 64)
	if err != nil {
		if _, err := s.store.Task(c.Request().Context(), id, auth.OwnerFrom(c)); err != nil {
			return err
		}
		return echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_conversation_named", "Value", strconv.Quote(c.Param("seq"))))
	}
	if seq < 1 || seq > math.MaxInt32 {
		return s.conversationError(c, id, seq, store.ErrNotFound)
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
		v.Outcome, v.Summary = d.Diagnosis.Outcome, report.SummaryIn(s.localizerOf(c), *d.Diagnosis)
		v.FailedTurn = d.Diagnosis.FailedTurn
		score := d.Diagnosis.FailureScore
		v.FailureScore = &score
	}
	if v.List, err = s.listAround(c, id, conv); err != nil {
		return err
	}
	v.Labels = labelStateOf(id, conv, auth.CSRFToken(c), labelListQuery(c.QueryParams()).Encode())
	if v.Progress, err = s.agentProgress(c.Request().Context(), rows.Task.AgentID, auth.OwnerFrom(c)); err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.ConversationShow(s.page(c, t(c, "conversation.title", "Seq", strconv.Itoa(int(conv.Seq)), "Title", rows.Task.Title)), v))
}

// listAround is where the conversation list the conversation was opened from leads:
// back to it, at a page that starts with this conversation, and on to the
// conversation after this one in it. A page not opened from the list (its query has
// none of the list's parameters) has none; one whose list query cannot be used leads
// back to all conversations.
func (s *Server) listAround(c echo.Context, id uuid.UUID, conv dbsqlc.TaskConversation) (*pages.ListNav, error) {
	filter, form, problem := conversationFilter(c.QueryParams())
	if len(form.Values()) == 0 {
		return nil, nil
	}
	all := &pages.ListNav{URL: components.TaskPath(id.String(), "conversations")}
	if !problem.IsZero() {
		return all, nil
	}
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	if err := s.searchOldNames(ctx, id, owner, &filter, form.Query); err != nil {
		return nil, err
	}
	if form.Sort == sortToLabel {
		return s.labelListAround(c, id, conv, filter, form)
	}
	here := store.ConversationCursor{Score: -1, Turns: conv.MessageCount, Severity: conv.MaxSeverity, Seq: conv.Seq}
	if conv.FailureScore != nil {
		here.Score = *conv.FailureScore
	}
	place, err := s.store.ConversationPlace(ctx, id, owner, filter, here)
	if err != nil {
		return nil, err
	}
	filtered, refused := describeFilter(s.localizerOf(c), filter, form.Query, place.ConversationList)
	if refused != "" {
		return all, nil
	}
	query := listQuery(form, filter)
	q := query.Encode()
	// Back at the list, its page starts with this conversation: ties in the sort's key
	// are in seq order, so the page after seq-1 with the same key is that one. The
	// list's first conversation goes back to its first page.
	if place.First == nil || *place.First != conv.Seq {
		before := here
		before.Seq--
		query.Set("after", before.String(filter.Sort))
	}
	nav := &pages.ListNav{URL: all.URL + "?" + query.Encode(), Filtered: filtered, Read: true}
	if place.Next != nil {
		nav.NextURL = string(components.ConversationInListURL(id.String(), int(*place.Next), q))
	}
	return nav, nil
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
		case review.ByOwner(c.ExpectedBy):
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
	return echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_conversation", "N", strconv.FormatInt(seq, 10)))
}
