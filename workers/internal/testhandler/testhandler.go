// Package testhandler is a workers.Handler for the worker's own tests and benchmarks:
// it treats a task's conversations as units of work, each finished unit a checkpoint
// written in the lease's transaction together with a warning scoped "unit-<seq>", so a
// unit done twice shows as two warnings. What it does to a task is read from the
// task's config (Plan), so one worker process can run tasks that behave differently.
package testhandler

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
)

// Stage is the stage name the handler reports.
const Stage = "diagnose"

// Plan is what the handler does with a task, stored as the task's config.
type Plan struct {
	// UnitDelayMS is how long each unit takes before it is stored (an LLM call).
	UnitDelayMS int `json:"unit_delay_ms"`
	// CrashOnStart makes every attempt stop its worker at once (Handler.Crash).
	CrashOnStart bool `json:"crash_on_start"`
	// PauseAtUnit pauses the first attempt's worker before this unit (Handler.Pause),
	// between two transactions, the way a long GC pause or a frozen VM would.
	PauseAtUnit int32 `json:"pause_at_unit"`
}

// Config is the plan as a task's config JSON.
func (p Plan) Config() json.RawMessage {
	b, _ := json.Marshal(p)
	return b
}

// Diagnosis is what a finished unit stores: who did it.
type Diagnosis struct {
	Attempt int32  `json:"attempt"`
	Worker  string `json:"worker"`
}

// Handler runs test tasks.
type Handler struct {
	pool   *pgxpool.Pool
	worker string
	// Crash is called when a plan says CrashOnStart; the test worker process kills
	// itself there. Nil ignores the plan.
	Crash func()
	// Pause is called when a plan says PauseAtUnit; the test worker process stops
	// itself there (SIGSTOP) until the test continues it. Nil ignores the plan.
	Pause func()
	// BeforeUnit, when set, runs before each unit starts, so in-process tests can pause
	// a handler or watch it.
	BeforeUnit func(ctx context.Context, lease *workers.Lease, seq int32)
}

// New returns a handler whose units record worker as the one that did them.
func New(pool *pgxpool.Pool, worker string) *Handler {
	return &Handler{pool: pool, worker: worker}
}

// Run does the task's pending units in order, skipping those an earlier attempt
// finished, and stops before a new unit once the worker drains.
func (h *Handler) Run(ctx context.Context, lease *workers.Lease) (workers.Outcome, error) {
	var plan Plan
	if err := json.Unmarshal(lease.Task.Config, &plan); err != nil {
		return workers.Outcome{}, fmt.Errorf("testhandler: plan: %w", err)
	}
	if plan.CrashOnStart && h.Crash != nil {
		h.Crash()
	}
	q := dbsqlc.New()
	units, err := q.ListConversationCheckpoints(ctx, h.pool, dbsqlc.ListConversationCheckpointsParams{
		TaskID: lease.Task.ID, OwnerUserID: lease.Task.Owner.UserID(),
	})
	if err != nil {
		return workers.Outcome{}, fmt.Errorf("testhandler: checkpoints: %w", err)
	}
	done := 0
	for _, u := range units {
		if u.DiagnosisStatus != taskstate.DiagnosisPending {
			done++
		}
	}
	if err := lease.Progress(ctx, Stage, done, len(units)); err != nil {
		return workers.Outcome{}, err
	}
	for _, u := range units {
		if u.DiagnosisStatus != taskstate.DiagnosisPending {
			continue
		}
		if lease.Draining() {
			return workers.Outcome{}, workers.ErrDraining
		}
		if err := h.unit(ctx, lease, plan, u.Seq); err != nil {
			return workers.Outcome{}, err
		}
		done++
		if err := lease.Progress(ctx, Stage, done, len(units)); err != nil {
			return workers.Outcome{}, err
		}
	}
	return workers.Outcome{Status: taskstate.Completed}, nil
}

// unit does one unit: the delay, then the checkpoint and its warning in one fenced
// transaction.
func (h *Handler) unit(ctx context.Context, lease *workers.Lease, plan Plan, seq int32) error {
	lease.Unit(fmt.Sprintf("unit-%d", seq))
	if seq == plan.PauseAtUnit && lease.Task.Attempt == 1 && h.Pause != nil {
		h.Pause()
	}
	if h.BeforeUnit != nil {
		h.BeforeUnit(ctx, lease, seq)
	}
	timer := time.NewTimer(time.Duration(plan.UnitDelayMS) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-timer.C:
	}
	diagnosis, _ := json.Marshal(Diagnosis{Attempt: lease.Task.Attempt, Worker: h.worker})
	q := dbsqlc.New()
	return lease.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := q.SaveConversationDiagnosis(ctx, tx, dbsqlc.SaveConversationDiagnosisParams{
			TaskID: lease.Task.ID, OwnerUserID: lease.Task.Owner.UserID(), Seq: seq,
			Diagnosis: diagnosis, DiagnosisStatus: taskstate.DiagnosisDone,
		}); err != nil {
			return fmt.Errorf("testhandler: save unit %d: %w", seq, err)
		}
		if err := q.InsertTaskWarning(ctx, tx, dbsqlc.InsertTaskWarningParams{
			TaskID: lease.Task.ID, OwnerUserID: lease.Task.Owner.UserID(), Stage: Stage,
			Scope: fmt.Sprintf("unit-%d", seq), Message: fmt.Sprintf("done by attempt %d", lease.Task.Attempt),
		}); err != nil {
			return fmt.Errorf("testhandler: record unit %d: %w", seq, err)
		}
		return nil
	})
}
