package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/static"
)

// favicon serves the icon where browsers and other clients look for it without a
// <link rel="icon"> (the pages link the SVG one), so none of them logs a 404.
func (s *Server) favicon(c echo.Context) error {
	icon, err := static.FS.ReadFile("favicon.ico")
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/x-icon", icon)
}
