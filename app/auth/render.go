package auth

import (
	"log/slog"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/htmx"
)

// render writes a full page as the response (htmx.Render).
func render(c echo.Context, status int, component templ.Component) error {
	return htmx.Render(c, status, component)
}

// logger is the auth logger with the request's id.
func (a *Auth) logger(c echo.Context) *slog.Logger {
	return a.deps.Logger.With("request_id", c.Response().Header().Get(echo.HeaderXRequestID))
}
