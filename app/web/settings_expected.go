package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/review"
)

var errNoRule = echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_rule"))

// expectedRuleList is GET /settings/expected: the owner's rules of expected behaviour,
// each with the diagnosis it was marked in and a button that removes it.
func (s *Server) expectedRuleList(c echo.Context) error {
	rules, err := s.store.ExpectedRules(c.Request().Context(), auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	v := pages.ExpectedRulesView{CSRFToken: auth.CSRFToken(c)}
	for _, r := range rules {
		row := pages.ExpectedRule{ID: r.ID, Type: r.Type, Category: r.Category, Title: r.Title, Reason: r.Reason,
			NotExpected: !r.Expected, SourceTitle: r.SourceTaskTitle, CreatedAt: r.CreatedAt,
			Agent: r.AgentName, AllAgents: r.AgentID == nil}
		if r.SourceTaskID != nil && r.SourceTaskCreatedAt != nil {
			row.SourceID, row.SourceStarted = r.SourceTaskID.String(), *r.SourceTaskCreatedAt
		}
		v.Rules = append(v.Rules, row)
	}
	return render(c, http.StatusOK, pages.ExpectedRules(s.page(c, t(c, "rules.heading")), v))
}

// expectedRuleDelete removes one of the owner's rules (POST .../delete from the plain
// form, DELETE from htmx, which removes its row): later runs no longer mark what it
// covered; the diagnoses it already marked keep their marks.
func (s *Server) expectedRuleDelete(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("rule"), 10, 64)
	if err != nil || id < 1 {
		return errNoRule
	}
	err = s.store.DeleteExpectedRule(c.Request().Context(), id, auth.OwnerFrom(c))
	if errors.Is(err, store.ErrNotFound) {
		return errNoRule
	}
	if err != nil {
		return err
	}
	if isFragment(c) {
		return c.NoContent(http.StatusOK)
	}
	s.flash.Set(c, t(c, "rules.removed"))
	return c.Redirect(http.StatusSeeOther, "/settings/expected")
}

// expectedRuleWiden is POST /settings/expected/{rule}/widen: the owner chooses to apply
// a rule made on one agent's diagnosis to all their agents. Their rules for the same
// issue on other agents that say the same are folded into it; one that says the
// opposite refuses it with a 409 and changes nothing.
func (s *Server) expectedRuleWiden(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("rule"), 10, 64)
	if err != nil || id < 1 {
		return errNoRule
	}
	err = review.WidenRule(c.Request().Context(), s.store, auth.OwnerFrom(c), id)
	var refused *review.Refused
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errNoRule
	case errors.As(err, &refused):
		return echo.NewHTTPError(http.StatusConflict, refused.Sentence)
	case err != nil:
		return err
	}
	s.flash.Set(c, t(c, "rules.widened"))
	return c.Redirect(http.StatusSeeOther, "/settings/expected")
}
