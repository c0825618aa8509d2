package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/checkup-dev/checkup/static"
)

// routes is the one route table of the application, with its middleware chain.
func (s *Server) routes() {
	e := s.echo
	e.Use(middleware.Recover())
	e.Use(middleware.RequestID())
	e.Use(s.requestLogger())
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "DENY",
		ReferrerPolicy:        "same-origin",
		ContentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
	}))

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.StaticFS("/static", echo.MustSubFS(static.FS, ""))

	e.GET("/", s.homeShow)
	e.RouteNotFound("/*", func(c echo.Context) error { return echo.NewHTTPError(http.StatusNotFound) })
}
