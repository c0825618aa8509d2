package web

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
)

// maxTokenNameChars is the longest name the token table takes.
const maxTokenNameChars = 100

// tokenCreate is POST /settings/tokens: it makes a token with the name given and
// answers with the page showing it, once. It is not stored anywhere but in this
// answer, which is why the answer is a page and not a redirect. A refused name is
// answered with the form again and the reason, and nothing made.
func (s *Server) tokenCreate(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	var problem locale.Text
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		problem = locale.Msg("tokens.name_missing")
	case n > maxTokenNameChars:
		problem = locale.Msg("tokens.name_long", "N", n, "Max", maxTokenNameChars)
	default:
		problem = textProblem("name", name, true)
	}
	l := s.localizerOf(c)
	if !problem.IsZero() {
		return s.renderTokens(c, http.StatusUnprocessableEntity, pages.TokensView{Name: name, Problem: l.Text(problem)})
	}
	token, row, err := auth.IssueToken(c.Request().Context(), s.store, auth.OwnerFrom(c), name)
	if errors.Is(err, store.ErrTooManyTokens) {
		return s.renderTokens(c, http.StatusUnprocessableEntity, pages.TokensView{Name: name, Problem: l.T("tokens.too_many", "N", store.MaxAPITokens)})
	}
	if err != nil {
		return err
	}
	s.logger(c).Info("api token created", "user_id", auth.OwnerFrom(c).UserID(), "token_id", row.ID)
	return s.renderTokens(c, http.StatusCreated, pages.TokensView{Created: &pages.CreatedToken{Name: row.Name, Token: token}})
}
