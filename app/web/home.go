package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/views/layout"
)

// homeShow sends a signed-in user to their tasks (Guard has already sent everyone
// else to /login).
func (s *Server) homeShow(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, "/tasks")
}

// page fills the frame's view of the request: who is signed in, the CSRF token forms
// and htmx send back, the local sign-in banner, a one-time flash message and the
// address the language switch comes back to.
func (s *Server) page(c echo.Context, title string) layout.Page {
	p := layout.Page{Title: title, LocalSignIn: s.deps.Config.LocalSignIn(), CSRFToken: auth.CSRFToken(c)}
	if c.Request().Method == http.MethodGet {
		p.Path = c.Request().URL.RequestURI()
	}
	if u, ok := auth.UserFrom(c); ok {
		p.UserName, p.UserEmail = u.Name, u.Email
	}
	p.Flash, p.FlashError = s.flash.Take(c)
	return p
}
