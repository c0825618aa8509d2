package web

import (
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
)

// hstsMaxAge is how long a browser keeps to HTTPS once told (a year, the usual).
const hstsMaxAge = "max-age=31536000"

// cacheHeaders keeps every answer but the static files and the open probes out of
// caches (Cache-Control: no-store): pages, fragments and downloads hold transcripts,
// and the sign-in page a CSRF token. With an https:// BASE_URL every answer also
// carries HSTS, whatever the proxy in front says about the scheme.
func (s *Server) cacheHeaders() echo.MiddlewareFunc {
	hsts := s.deps.Config.SecureCookies()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			if hsts {
				h.Set("Strict-Transport-Security", hstsMaxAge)
			}
			if access(c.Path()) != auth.Open {
				h.Set(echo.HeaderCacheControl, "no-store")
			}
			return next(c)
		}
	}
}
