package web

import (
	"errors"
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/review"
)

// taskShow is the task page: its state, live progress while it runs, and the results
// stored so far.
func (s *Server) taskShow(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	v, err := s.taskPage(c, id)
	if err != nil {
		return err
	}
	return renderPage(c, http.StatusOK, pages.TaskShow(s.page(c, v.Report.Task.Title), v), pages.TaskBody(v))
}

// taskPage is what the task page shows of task id, with the diagnoses a finished one
// can be compared with. Whether its agent's detector is learning is read before the
// report: a learning task stores the new scores before it ends, so a learning that
// ends between the two reads is in the report, and one still going shows its notice,
// which polls. Read the other way, a page could show the old scores without a notice
// and never take the new ones in.
func (s *Server) taskPage(c echo.Context, id uuid.UUID) (pages.TaskView, error) {
	learning, err := s.agentLearning(c, id)
	if err != nil {
		return pages.TaskView{}, err
	}
	r, err := s.taskReport(c, id, store.ReportPage)
	if err != nil {
		return pages.TaskView{}, err
	}
	v := pages.TaskView{Report: r, Learning: learning, CSRFToken: auth.CSRFToken(c), MinConversations: s.deps.Config.MinConversations}
	if v.RuleGone, v.RuleFrom, err = s.ruleWords(c, r); err != nil {
		return v, err
	}
	if v.RerunOf, err = s.rerunTitle(c, r.Task.RerunOf); err != nil || comparable(r.Task) != nil {
		return v, err
	}
	v.CompareOptions, err = s.compareOptions(c, r.Task, "")
	return v, err
}

// rerunTitle is the title of the owner's diagnosis id, which a re-run repeats: "" when
// there is none or it has been deleted.
func (s *Server) rerunTitle(c echo.Context, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	uid, err := uuid.Parse(id)
	if err != nil {
		return "", nil
	}
	t, err := s.store.Task(c.Request().Context(), uid, auth.OwnerFrom(c))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return t.Title, err
}

// ruleWords finds, for the clusters of r the owner gave their word on (expected, or not
// expected though the policy seemed to call for it), the rule of its agent's (or for
// all agents) that says it now. gone
// holds those none of their rules says any more (they removed it, here or on another
// diagnosis), so the page does not promise a rule that is gone; from holds the
// diagnosis a rule was made on when it is another one, so the page says where the word
// came from. It reads the rules only when r has such a word.
func (s *Server) ruleWords(c echo.Context, r report.Report) (gone map[int]bool, from map[int]components.RuleSource, err error) {
	var marked []report.Cluster
	for _, cl := range r.Clusters {
		if cl.PolicyOverruled || review.ByOwner(cl.ExpectedBy) {
			marked = append(marked, cl)
		}
	}
	if len(marked) == 0 {
		return nil, nil, nil
	}
	rules, err := s.store.AgentExpectedRules(c.Request().Context(), auth.OwnerFrom(c), r.Task.AgentID)
	if err != nil {
		return nil, nil, err
	}
	gone, from = map[int]bool{}, map[int]components.RuleSource{}
	for _, cl := range marked {
		issue := review.IssueOf(cl.Type, cl.Category, cl.Title, cl.PolicyOverruled)
		i := slices.IndexFunc(rules, func(r dbsqlc.ListExpectedRulesRow) bool { return review.RuleCovers(r, issue) })
		if i < 0 {
			gone[cl.Idx] = true
			continue
		}
		// Only a rule older than this diagnosis marked it as its clusters were built; a
		// newer one was made by a mark here, or by marking the same issue elsewhere
		// since, which leaves this diagnosis's own mark in place.
		rule := rules[i]
		if rule.CreatedAt.Before(r.Task.CreatedAt) && rule.SourceTaskID != nil && rule.SourceTaskID.String() != r.Task.ID && rule.SourceTaskCreatedAt != nil {
			from[cl.Idx] = components.RuleSource{TaskID: rule.SourceTaskID.String(), Title: rule.SourceTaskTitle, Started: *rule.SourceTaskCreatedAt}
		}
	}
	return gone, from, nil
}
