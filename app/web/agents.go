package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/detector"
)

// agentRuns is how many of an agent's latest diagnoses its page lists.
const agentRuns = 50

var errNoAgent = echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_agent"))

// agentList is GET /agents: the owner's agents, newest first, each with its detector
// (its version, what it learned from, its cross-validated AUROC and interval beside
// what counting alone scores, its top features) or the labels it still needs, and
// whether it is learning now.
func (s *Server) agentList(c echo.Context) error {
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	agents, err := s.store.Agents(ctx, owner)
	if err != nil {
		return err
	}
	v := pages.AgentsView{}
	for _, a := range agents {
		state, err := s.store.AgentState(ctx, a.ID, owner)
		if err != nil {
			return err
		}
		card, err := agentCard(state, a.FailureModel)
		if err != nil {
			return err
		}
		card.Runs, card.LastRunAt = a.Runs, a.LastRunAt
		v.Agents = append(v.Agents, card)
	}
	return render(c, http.StatusOK, pages.AgentList(s.page(c, t(c, "agents.title")), v))
}

// agentShow is GET /agents/{agent}: one of the owner's agents, its detector and its
// latest diagnoses. Another owner's agent is a 404, as one that does not exist.
func (s *Server) agentShow(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("agent"), 10, 64)
	if err != nil || id < 1 {
		return errNoAgent
	}
	d, err := s.store.AgentDetail(c.Request().Context(), id, auth.OwnerFrom(c), agentRuns)
	if errors.Is(err, store.ErrNotFound) {
		return errNoAgent
	}
	if err != nil {
		return err
	}
	card, err := agentCard(d.AgentState, d.FailureModel)
	if err != nil {
		return err
	}
	card.Runs = len(d.Runs)
	v := pages.AgentView{Agent: card, Tasks: d.Runs, MoreTasks: len(d.Runs) == agentRuns}
	return render(c, http.StatusOK, pages.AgentShow(s.page(c, t(c, "agents.agent_title", "Agent", d.Name)), v))
}

// agentCard is what the pages show of an agent: its state and its detector's summary
// (stored JSON, empty without one).
func agentCard(a store.AgentState, summary json.RawMessage) (pages.AgentCard, error) {
	card := pages.AgentCard{Progress: *labelProgress(&a)}
	if len(summary) > 0 && string(summary) != "null" {
		card.Model = &detector.Summary{}
		if err := json.Unmarshal(summary, card.Model); err != nil {
			return card, fmt.Errorf("web: agent %d: failure model: %w", a.ID, err)
		}
	}
	return card, nil
}
