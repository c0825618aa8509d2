package web

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/compare"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// compareCandidates is how many diagnoses the baseline picker offers.
const compareCandidates = 50

var (
	errNoBaseline     = echo.NewHTTPError(http.StatusBadRequest, locale.Msg("compare_refused.no_baseline"))
	errSelfBaseline   = echo.NewHTTPError(http.StatusBadRequest, locale.Msg("compare_refused.self"))
	errNoSuchBaseline = echo.NewHTTPError(http.StatusNotFound, locale.Msg("compare_refused.no_such_baseline"))
)

// taskCompare is the compare page: the task against ?baseline=, issue by issue.
func (s *Server) taskCompare(c echo.Context) error {
	current, baseline, err := s.comparedRuns(c)
	if err != nil {
		return err
	}
	cmp := compare.Compare(baseline, current)
	options, err := s.compareOptions(c, current.Task, baseline.Task.ID)
	if err != nil {
		return err
	}
	differ, err := s.differentAgents(c, current.Task, baseline.Task)
	if err != nil {
		return err
	}
	v := pages.CompareView{Comparison: cmp, Options: options, DifferentAgents: differ}
	return render(c, http.StatusOK, pages.CompareShow(s.page(c, t(c, "compare.title", "Title", current.Task.Title)), v))
}

// taskCompareJSON is compare.json: the same comparison for scripts
// (docs/compare-json.md).
func (s *Server) taskCompareJSON(c echo.Context) error {
	current, baseline, err := s.comparedRuns(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := compare.Compare(baseline, current).WriteJSON(&buf); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.Blob(http.StatusOK, "application/json", buf.Bytes())
}

// comparedRuns reads the task and its ?baseline=, both the signed-in owner's and both
// finished with results. Every way the baseline can be wrong gets its own sentence.
func (s *Server) comparedRuns(c echo.Context) (current, baseline report.Report, err error) {
	id, err := taskID(c)
	if err != nil {
		return current, baseline, err
	}
	// The task first: another owner's is a 404 whatever its baseline says.
	if current, err = s.taskReport(c, id, store.ReportPage); err != nil {
		return current, baseline, err
	}
	raw := c.QueryParam("baseline")
	if raw == "" {
		return current, baseline, errNoBaseline
	}
	other, err := uuid.Parse(raw)
	if err != nil {
		return current, baseline, echo.NewHTTPError(http.StatusBadRequest,
			locale.Msg("compare_refused.not_an_id", "Value", strconv.Quote(textmatch.ClipQuote(raw, 60))))
	}
	if other == id {
		return current, baseline, errSelfBaseline
	}
	if baseline, err = s.taskReport(c, other, store.ReportPage); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			err = errNoSuchBaseline
		}
		return current, baseline, err
	}
	for _, r := range []report.Report{current, baseline} {
		if err := comparable(r.Task); err != nil {
			return current, baseline, err
		}
	}
	return current, baseline, nil
}

// comparable refuses a run that has no results to compare (yet).
func comparable(t report.Task) error {
	switch {
	case t.Status.Concluded():
		return nil
	case !t.Terminal:
		return echo.NewHTTPError(http.StatusConflict, locale.Msg("compare_refused.not_finished", "Title", strconv.Quote(t.Title)))
	}
	return echo.NewHTTPError(http.StatusConflict,
		locale.Msg("compare_refused.no_results", "Title", strconv.Quote(t.Title), "Status", locale.Msg("status."+string(t.Status))))
}

// compareOptions is the baseline picker for task t: the owner's finished diagnoses
// with results, those with its title first, the selected one marked.
func (s *Server) compareOptions(c echo.Context, t report.Task, selected string) ([]pages.CompareOption, error) {
	id, err := uuid.Parse(t.ID)
	if err != nil {
		return nil, err
	}
	rows, err := s.store.CompareCandidates(c.Request().Context(), id, t.Title, auth.OwnerFrom(c), compareCandidates)
	if err != nil {
		return nil, err
	}
	out := make([]pages.CompareOption, len(rows))
	for i, r := range rows {
		out[i] = pages.CompareOption{ID: r.ID.String(), Title: r.Title, CreatedAt: r.CreatedAt, Conversations: int(r.ConversationCount),
			SameTitle: r.SameTitle, Rerun: r.RerunOf != nil && r.RerunOf.String() == t.ID, Original: t.RerunOf == r.ID.String(),
			Selected: r.ID.String() == selected, Agent: r.AgentName,
			SameAgent: sameAgent(r.AgentID, t.AgentID)}
	}
	pages.TellApart(s.localizerOf(c), out)
	return out, nil
}

// sameAgent reports whether two runs' agents are one: the same id, or neither has one.
func sameAgent(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// differentAgents reports whether the two runs' first conversations have system prompts
// with little in common (compare.DifferentAgents). A run without a conversation or a
// system prompt cannot tell, and says no.
func (s *Server) differentAgents(c echo.Context, current, baseline report.Task) (bool, error) {
	var prompts [2]string
	for i, t := range []report.Task{current, baseline} {
		id, err := uuid.Parse(t.ID)
		if err != nil {
			return false, err
		}
		raw, err := s.store.FirstMessages(c.Request().Context(), id, auth.OwnerFrom(c))
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if prompts[i], err = compare.SystemPrompt(raw); err != nil {
			return false, err
		}
	}
	return compare.DifferentAgents(prompts[0], prompts[1]), nil
}
