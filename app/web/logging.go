package web

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

// requestLogger logs one line when a request ends and counts it in the metrics by its
// route's template. The line is at debug level unless the answer is a server error, so
// its attributes are formatted only when that level is on.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			status := c.Response().Status
			took := time.Since(start)
			s.deps.Metrics.ObserveRequest(c.Request().Method, c.Path(), status, took)
			level := slog.LevelDebug
			if status >= 500 {
				level = slog.LevelWarn
			}
			s.deps.Logger.Log(c.Request().Context(), level, "request", "request_id", requestID(c),
				"method", c.Request().Method, "route", c.Path(), "status", status, "duration", took)
			return nil
		}
	}
}

// logger returns a logger carrying the request's id, made when a handler logs rather
// than for every request: most requests log nothing but the line above.
func (s *Server) logger(c echo.Context) *slog.Logger {
	return s.deps.Logger.With("request_id", requestID(c))
}

// requestID is the id the RequestID middleware gave the request.
func requestID(c echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}
