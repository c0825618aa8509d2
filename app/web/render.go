package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/htmx"
)

// render writes a templ component as the response. The page is rendered to memory
// first and sent in one write with its Content-Length: a rendering error becomes a
// clean error page instead of half a page, and a small fragment costs one packet.
func render(c echo.Context, status int, component templ.Component) error {
	var buf bytes.Buffer
	if err := component.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
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

// seeOther sends the browser on to path after a change: a 303 for a plain form, and
// for htmx an HX-Redirect, which loads the page whole instead of swapping it into the
// form.
func seeOther(c echo.Context, path string) error {
	if isFragment(c) {
		c.Response().Header().Set(htmx.HeaderRedirect, path)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, path)
}
