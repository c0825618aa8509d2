package auth

import (
	"log/slog"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a full page as the response.
func render(c echo.Context, status int, component templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return component.Render(c.Request().Context(), c.Response().Writer)
}

// logger is the auth logger with the request's id.
func (a *Auth) logger(c echo.Context) *slog.Logger {
	return a.deps.Logger.With("request_id", c.Response().Header().Get(echo.HeaderXRequestID))
}
