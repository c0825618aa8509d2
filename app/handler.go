package main

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/workers"
)

// newHandler returns the task handler every worker of this binary runs. Until the
// diagnosis pipeline is wired in here, that is pipelineUnavailable.
func newHandler(pool *pgxpool.Pool, cfg config.Config, logger *slog.Logger) workers.Handler {
	return pipelineUnavailable{}
}

// pipelineUnavailable is the temporary handler of a build without the diagnosis
// pipeline: it ends every task failed with a sentence saying so, rather than leaving
// tasks pending for ever.
type pipelineUnavailable struct{}

func (pipelineUnavailable) Run(context.Context, *workers.Lease) (workers.Outcome, error) {
	return workers.Outcome{Status: workers.Failed, Error: "The diagnosis pipeline is not available in this build."}, nil
}
