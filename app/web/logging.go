package web

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

const loggerKey = "logger"

// requestLogger gives every request a logger carrying its request id, logs one line
// when it ends and counts it in the metrics by its route's template.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			l := s.deps.Logger.With("request_id", c.Response().Header().Get(echo.HeaderXRequestID))
			c.Set(loggerKey, l)
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
			l.Log(c.Request().Context(), level, "request", "method", c.Request().Method,
				"route", c.Path(), "status", status, "duration", took)
			return nil
		}
	}
}

// logger returns the request's logger.
func logger(c echo.Context) *slog.Logger {
	if l, ok := c.Get(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
