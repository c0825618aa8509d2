package web

import (
	"errors"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/htmx"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
)

// errNoPage answers an address no route serves.
var errNoPage = echo.NewHTTPError(http.StatusNotFound, locale.Msg("errors.no_page"))

// handleError is the one place errors become responses: people get a sentence, the
// log gets the error, and store.ErrNotFound is the 404 of a task that is not the
// signed-in owner's. A browser's page request gets the sentence inside the site's
// frame with a way back; htmx, downloads and other machine requests get it as plain
// text, which is what they can show or log. The API (/api/...) gets it as JSON, with
// the field a refused input was in. A message is written in the reader's language: an
// echo.HTTPError may carry a locale.Text for it.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	l := s.localizerOf(c)
	if errors.Is(err, store.ErrNotFound) {
		err = errNoTask // a store read or change found no task of this owner's
	}
	code := http.StatusInternalServerError
	msg := l.T("errors.internal")
	var (
		he *echo.HTTPError
		in *inputError
	)
	switch {
	case outOfDisk(err):
		code, msg = http.StatusServiceUnavailable, l.T("errors.out_of_disk")
	case errors.As(err, &in):
		code, msg = in.status, l.Text(in.msg)
	case errors.As(err, &he):
		code = he.Code
		switch m := he.Message.(type) {
		case locale.Text:
			if code < 500 {
				msg = l.Text(m)
			}
		case string:
			if code < 500 && m != http.StatusText(code) {
				msg = m
			} else if code < 500 {
				msg = l.T("errors.status", "Status", strconv.Itoa(code))
			}
		default:
			if code < 500 {
				msg = l.T("errors.status", "Status", strconv.Itoa(code))
			}
		}
	}
	if code >= 500 {
		s.logger(c).Error("request failed", "err", err, "status", code)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(code)
		return
	}
	if isAPI(c) {
		_ = c.JSON(code, newAPIError(l, msg, in))
		return
	}
	if wantsPage(c) || (errors.Is(err, errNoPage) && acceptsHTML(c)) {
		v := pages.ErrorView{Status: code, Message: msg}
		if render(c, code, pages.ErrorPage(s.page(c, v.Heading(l)), v)) == nil {
			return
		}
	}
	_ = c.String(code, msg)
}

// wantsPage reports whether the request is a browser asking for a page: not htmx, not
// a file (a download, report.json, a static file) and accepting HTML.
func wantsPage(c echo.Context) bool {
	return !strings.Contains(path.Base(c.Request().URL.Path), ".") && acceptsHTML(c)
}

// acceptsHTML reports whether the request is a browser's navigation, not htmx's: an
// address no route serves gets the site's page even when it looks like a file
// (/index.php), since nothing else can be meant by it.
func acceptsHTML(c echo.Context) bool {
	r := c.Request()
	return !htmx.IsRequest(r) && strings.Contains(r.Header.Get(echo.HeaderAccept), "text/html")
}
