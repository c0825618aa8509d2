package htmx

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// Render writes a templ component as the response. The page is rendered to memory
// first and sent in one write with its Content-Length: a rendering error becomes a
// clean error page instead of half a page, and a small fragment costs one packet. A
// Chinese page has the spaces its pieces were joined with taken out where Chinese
// takes none (tightenChinese).
func Render(c echo.Context, status int, component templ.Component) error {
	var buf bytes.Buffer
	if err := component.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	page := buf.Bytes()
	if locale.From(c.Request().Context()).Code() == locale.Chinese {
		page = tightenChinese(page)
	}
	return c.HTMLBlob(status, page)
}

// SeeOther sends the browser on to path after a change: a 303 for a plain form, and
// for an htmx fragment request an HX-Redirect, which loads the page whole instead of
// swapping it into the form.
func SeeOther(c echo.Context, path string) error {
	if IsFragment(c.Request()) {
		c.Response().Header().Set(HeaderRedirect, path)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, path)
}
