package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/checkup-dev/checkup/app/config"
)

// worker runs the task worker without the web server.
func worker(ctx context.Context, cfg config.Config, logger *slog.Logger, args []string) error {
	return errors.New("the standalone worker is not available yet")
}
