package workers

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// Handler runs one claimed task; the diagnosis pipeline implements it. Run is called
// with the task's context and its lease, and returns how the task ended.
//
// The contract, which is what makes a crash cost only the units in flight:
//   - write every result in lease.InTx, one finished unit per transaction, so it is a
//     checkpoint; on a resumed task (lease.Task.Attempt > 1) skip the units already done;
//   - check lease.Draining() before starting a unit, and return ErrDraining once it is
//     true: the worker hands the task back for another instance to resume (any other
//     error fails the task, shutdown or not);
//   - return when ctx ends: the lease was lost, the owner canceled, a heartbeat could not
//     be saved, or the shutdown grace ran out. The worker settles the task by the cause.
type Handler interface {
	Run(ctx context.Context, lease *Lease) (Outcome, error)
}

// Outcome is how a task ended, as the handler saw it. A nil error with an Outcome
// finishes the task with that status; Error is the sentence shown to its owner.
type Outcome struct {
	Status taskstate.Status // a terminal one (docs/architecture.md#task-statuses)
	Error  string
}

var (
	// ErrLeaseLost means another worker holds the task now (it took over a stale
	// lease), or the task ended elsewhere: the handler must write nothing more.
	ErrLeaseLost = errors.New("workers: lease lost")
	// ErrCanceled means the task's owner asked it to stop.
	ErrCanceled = errors.New("workers: canceled by the task's owner")
	// ErrDraining is what a handler returns when it stops for a shutdown
	// (lease.Draining()); the worker hands the task back.
	ErrDraining = errors.New("workers: worker is shutting down")
	// errShutdownGrace ends a task's context when the shutdown grace runs out.
	errShutdownGrace = errors.New("workers: shutdown grace ran out")
)

// heartbeatError is the cause of a task context ended because a heartbeat (or a
// progress update, which is one) could not be saved: an infrastructure error that is
// never swallowed.
type heartbeatError struct{ err error }

func (e *heartbeatError) Error() string {
	return "the task's heartbeat could not be saved: " + e.err.Error()
}
func (e *heartbeatError) Unwrap() error { return e.err }

// Task is the claimed task as the handler sees it.
type Task struct {
	ID    uuid.UUID
	Owner store.Owner
	Title string
	// Stage is where an earlier attempt got to (taskstate.Queued on a first run).
	Stage taskstate.Stage
	// Attempt is the lease's fencing token: every claim increments it and no claim
	// ever reuses one, so a write carrying an older token matches no row.
	Attempt int32
	// LostCount counts the earlier workers lost while holding this task.
	LostCount         int32
	Config            json.RawMessage
	ConversationCount int32
	CreatedAt         time.Time
	ClaimedAt         time.Time
	// TookOver is true when this claim took the task over from a lost worker.
	TookOver bool
	// CancelRequested is true when the owner asked to stop before this claim.
	CancelRequested bool
	// Kind says what the task does: a diagnosis, or learning from an agent's labels.
	Kind taskstate.Kind
	// AgentID is the agent the task belongs to; 0 for a task that has none.
	AgentID int64
}

// Resumed reports whether an earlier attempt may have finished units already.
func (t Task) Resumed() bool { return t.Attempt > 1 }

func taskFromClaim(r dbsqlc.ClaimTaskRow) Task {
	t := Task{
		ID: r.ID, Owner: store.ClaimedOwner(r), Title: r.Title, Stage: r.Stage,
		Attempt: r.Attempt, LostCount: r.LostCount, Config: r.Config,
		ConversationCount: r.ConversationCount, CreatedAt: r.CreatedAt,
		TookOver: r.TookOver, CancelRequested: r.CancelRequestedAt != nil, Kind: r.Kind,
	}
	if r.AgentID != nil {
		t.AgentID = *r.AgentID
	}
	if r.ClaimedAt != nil {
		t.ClaimedAt = *r.ClaimedAt
	}
	return t
}
