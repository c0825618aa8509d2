package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db"
)

// healthz says only that the process is up, so an orchestrator does not restart an
// instance because its database is down.
func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz says whether this instance can serve: the database answers and its schema is
// at the version this binary expects.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	current, latest, err := db.SchemaVersion(ctx, s.deps.Pool)
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "database": "unreachable"})
	}
	body := map[string]any{"status": "ok", "database": "ok", "schema_version": current, "expected_schema_version": latest}
	if current != latest {
		body["status"] = "migrating"
		return c.JSON(http.StatusServiceUnavailable, body)
	}
	return c.JSON(http.StatusOK, body)
}
