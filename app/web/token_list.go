package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
)

// tokenList is GET /settings/tokens: the owner's personal access tokens and the form
// that makes one.
func (s *Server) tokenList(c echo.Context) error {
	return s.renderTokens(c, http.StatusOK, pages.TokensView{})
}

// renderTokens shows the tokens page with v's form state (a token just made, or a
// refused name) and the owner's tokens as they are now.
func (s *Server) renderTokens(c echo.Context, status int, v pages.TokensView) error {
	tokens, err := s.store.APITokens(c.Request().Context(), auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	v.CSRFToken, v.BaseURL, v.Max, v.Now = auth.CSRFToken(c), s.deps.Config.BaseURL, store.MaxAPITokens, time.Now()
	v.Tokens = make([]pages.TokenRow, len(tokens))
	for i, t := range tokens {
		v.Tokens[i] = pages.TokenRow(t)
	}
	// The page may carry a token shown once: no cache may keep it.
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return render(c, status, pages.Tokens(s.page(c, t(c, "tokens.title")), v))
}
