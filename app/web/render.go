package web

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/htmx"
)

// render writes a templ component as the response (htmx.Render).
func render(c echo.Context, status int, component templ.Component) error {
	return htmx.Render(c, status, component)
}

// isFragment reports whether htmx asked for a part of a page: an htmx request that is
// not a boosted navigation (which wants the whole page).
func isFragment(c echo.Context) bool {
	return htmx.IsFragment(c.Request())
}

// renderPage writes the full page for a normal request and fragment for an htmx one,
// so one handler serves both and the page works without JavaScript.
func renderPage(c echo.Context, status int, full, fragment templ.Component) error {
	c.Response().Header().Add(echo.HeaderVary, htmx.HeaderRequest)
	if isFragment(c) {
		return render(c, status, fragment)
	}
	return render(c, status, full)
}

// seeOther sends the browser on to path after a change (htmx.SeeOther).
func seeOther(c echo.Context, path string) error { return htmx.SeeOther(c, path) }
