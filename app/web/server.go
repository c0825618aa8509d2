// Package web is Checkup's HTTP server: one route table (routes.go), the middleware
// chain, one error handler and one render helper, and a file per resource.
package web

import (
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/config"
)

// Deps is what the server needs from the rest of the program.
type Deps struct {
	Config config.Config
	Pool   *pgxpool.Pool
	Logger *slog.Logger
}

// Server serves the dashboard.
type Server struct {
	deps Deps
	echo *echo.Echo
}

// New builds the server and its routes.
func New(deps Deps) *Server {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	s := &Server{deps: deps, echo: e}
	e.HTTPErrorHandler = s.handleError
	s.routes()
	return s
}

// Handler is the server as an http.Handler, for http.Server and tests.
func (s *Server) Handler() http.Handler { return s.echo }
