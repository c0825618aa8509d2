package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/views/layout"
	"github.com/checkup-dev/checkup/views/pages"
)

func (s *Server) homeShow(c echo.Context) error {
	return render(c, http.StatusOK, pages.Home(s.page(c, "Home")))
}

// page fills the frame's view of the request.
func (s *Server) page(c echo.Context, title string) layout.Page {
	return layout.Page{Title: title, LocalSignIn: s.deps.Config.LocalSignIn()}
}
