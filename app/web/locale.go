package web

import (
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// localize puts the reader's Localizer (auth.Auth.Localizer: their choice, their
// browser's, or its Accept-Language) in the request's context, where the templates and
// the handlers read it, and says which language the answer is in.
func (s *Server) localize() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			s.localizerOf(c)
			return next(c)
		}
	}
}

// localizerOf is the request's Localizer, put in its context when it is not there yet:
// an error answered before the middleware ran (a refused CSRF token) is written in the
// reader's language too.
func (s *Server) localizerOf(c echo.Context) *locale.Localizer {
	r := c.Request()
	if l := locale.From(r.Context()); l != nil {
		return l
	}
	l := s.auth.Localizer(c)
	c.SetRequest(r.WithContext(locale.NewContext(r.Context(), l)))
	c.Response().Header().Set("Content-Language", l.Code())
	return l
}

// t writes message id in the request's language.
func t(c echo.Context, id string, args ...any) string {
	return locale.T(c.Request().Context(), id, args...)
}
