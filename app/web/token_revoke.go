package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// errNoSuchToken is the answer for a token that does not exist and for another user's
// token alike.
var errNoSuchToken = echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_token"))

// tokenRevoke is POST /settings/tokens/{token}/revoke: the token stops working at
// once (the API looks every request's token up) and the browser goes back to the list.
func (s *Server) tokenRevoke(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("token"), 10, 64)
	if err != nil {
		return errNoSuchToken
	}
	owner := auth.OwnerFrom(c)
	name, err := s.store.RevokeAPIToken(c.Request().Context(), id, owner)
	if errors.Is(err, store.ErrNotFound) {
		return errNoSuchToken // not the task sentence the error handler gives ErrNotFound
	}
	if err != nil {
		return err
	}
	s.logger(c).Info("api token revoked", "user_id", owner.UserID(), "token_id", id)
	s.flash.Set(c, t(c, "tokens.revoked", "Name", name))
	return seeOther(c, "/settings/tokens")
}
