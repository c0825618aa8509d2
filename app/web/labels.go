package web

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/detector"
)

// outcomeClear is the outcome of the form that takes the owner's label back.
const outcomeClear = "clear"

var errNotKeptLabel = echo.NewHTTPError(http.StatusConflict, locale.Msg("label_refused.not_kept"))

// conversationLabel is POST /tasks/{id}/conversations/{seq}/label: the owner says the
// conversation failed or succeeded (outcome), or takes their label back (outcome=clear).
// htmx gets the conversation page's label panel (from=conversation) or the list's cell
// (from=list), with the counter when the list has one; a plain form is sent back where it came from, the
// list's query kept, with a flash that says what was done.
func (s *Server) conversationLabel(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	seq, err := strconv.ParseInt(c.Param("seq"), 10, 64)
	if err != nil || seq < 1 || seq > math.MaxInt32 {
		return s.conversationError(c, id, max(seq, 0), store.ErrNotFound)
	}
	outcome := c.FormValue("outcome")
	if outcome != "failed" && outcome != "succeeded" && outcome != outcomeClear {
		if _, err := s.store.Task(ctx, id, owner); err != nil {
			return err
		}
		return echo.NewHTTPError(http.StatusBadRequest, locale.Msg("label_refused.outcome", "Value", strconv.Quote(outcome)))
	}
	change := store.LabelChange{Seq: int32(seq), Outcome: strings.TrimPrefix(outcome, outcomeClear)}
	set, err := s.store.SetLabels(ctx, id, owner, []store.LabelChange{change}, detector.MinPerOutcome)
	var refused *store.LabelsRefused
	switch {
	case errors.As(err, &refused) && len(refused.NotKept) > 0:
		return errNotKeptLabel
	case errors.As(err, &refused):
		return s.conversationError(c, id, seq, store.ErrNotFound)
	case err != nil:
		return err
	}
	list := labelListQuery(c.QueryParams())
	if !isFragment(c) {
		s.flash.Set(c, labelledSentence(s.localizerOf(c), change.Outcome))
		if c.QueryParam("from") == "list" {
			return c.Redirect(http.StatusSeeOther, components.TaskPath(id.String(), "conversations")+queryString(list))
		}
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/tasks/%s/conversations/%d%s", id, seq, queryString(list)))
	}
	got := set.Conversations[0]
	state := pages.LabelState{TaskID: id.String(), Seq: int(got.Seq), Label: deref(got.Label), Source: deref(got.LabelSource),
		Reviewed: deref(got.ReviewedLabel), ReviewedAt: got.ReviewedAt, CSRFToken: auth.CSRFToken(c), ListQuery: list.Encode()}
	progress := labelProgress(set.Agent)
	if c.QueryParam("from") == "list" {
		parts := []templ.Component{pages.LabelCell(state)}
		if progress != nil && list.Get("sort") == sortToLabel { // the list with the counter
			parts = append(parts, pages.LabelCounter(*progress, true))
		}
		return render(c, http.StatusOK, templ.Join(parts...))
	}
	return render(c, http.StatusOK, pages.LabelPanel(state, progress))
}

// labelledSentence is the flash that confirms a label given with a plain form.
func labelledSentence(l *locale.Localizer, outcome string) string {
	if outcome == "" {
		return l.T("label.taken_back")
	}
	return l.T("label.labeled", "Label", pages.LabelWord(l, outcome))
}

// labelListQuery is the query of the list a label was given from, as the list reads
// it (conversationFilter), so that the answer leads back to the same list; empty for
// one the list cannot read.
func labelListQuery(q url.Values) url.Values {
	filter, form, problem := conversationFilter(q)
	if !problem.IsZero() || len(form.Values()) == 0 {
		return url.Values{}
	}
	out := listQuery(form, filter)
	if after := q.Get("after"); after != "" {
		out.Set("after", after)
	}
	return out
}

// labelStateOf is a conversation's labels as the pages show them.
func labelStateOf(taskID uuid.UUID, conv dbsqlc.TaskConversation, csrf, listQuery string) pages.LabelState {
	return pages.LabelState{TaskID: taskID.String(), Seq: int(conv.Seq), Label: deref(conv.Label), Source: deref(conv.LabelSource),
		Reviewed: deref(conv.ReviewedLabel), ReviewedAt: conv.ReviewedAt, CSRFToken: csrf, ListQuery: listQuery}
}

// agentProgress is what the task's agent has learned from its labels, nil for a task
// without an agent.
func (s *Server) agentProgress(ctx context.Context, agentID *int64, owner store.Owner) (*pages.LabelProgress, error) {
	if agentID == nil {
		return nil, nil
	}
	a, err := s.store.AgentState(ctx, *agentID, owner)
	if err != nil {
		return nil, err
	}
	return labelProgress(&a), nil
}

// labelProgress is the counter's view of an agent's state; nil for none.
func labelProgress(a *store.AgentState) *pages.LabelProgress {
	if a == nil {
		return nil
	}
	return &pages.LabelProgress{AgentID: a.ID, Agent: a.Name, Failed: a.Labels.Failed, Succeeded: a.Labels.Succeeded,
		Min: detector.MinPerOutcome, HasDetector: a.HasDetector, Learning: a.Learning}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
