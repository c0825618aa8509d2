package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// The task aggregate for its owner: reading one, its progress and the list, and the
// owner's cancel, re-run and delete. Creating one from an upload is task_upload.go's.

// Task reads owner's task row. A task that does not exist or belongs to someone else
// is ErrNotFound.
func (s *Store) Task(ctx context.Context, id uuid.UUID, owner Owner) (dbsqlc.AnalysisTask, error) {
	t, err := s.q.GetAnalysisTask(ctx, s.pool, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return t, readError("task", err)
	}
	return t, nil
}

// TaskState reads the task row without its stored JSON: what the API answers a
// script's poll with. A task that does not exist or belongs to someone else is
// ErrNotFound.
func (s *Store) TaskState(ctx context.Context, id uuid.UUID, owner Owner) (dbsqlc.GetAnalysisTaskStateRow, error) {
	t, err := s.q.GetAnalysisTaskState(ctx, s.pool, dbsqlc.GetAnalysisTaskStateParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return t, readError("task state", err)
	}
	return t, nil
}

// EarlierUpload returns when owner last uploaded, before task id, a file of the same
// name and size (most likely the same file again), and whether they did.
func (s *Store) EarlierUpload(ctx context.Context, id uuid.UUID, owner Owner) (time.Time, bool, error) {
	rows, err := s.q.FindEarlierUpload(ctx, s.pool, dbsqlc.FindEarlierUploadParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return time.Time{}, false, readError("earlier upload", err)
	}
	if len(rows) == 0 {
		return time.Time{}, false, nil
	}
	return rows[0], true, nil
}

// TaskProgress reads what the polling fragment shows: one primary-key lookup, so the
// pages can poll every two seconds without weighing on the database.
func (s *Store) TaskProgress(ctx context.Context, id uuid.UUID, owner Owner) (dbsqlc.GetAnalysisProgressRow, error) {
	row, err := s.q.GetAnalysisProgress(ctx, s.pool, dbsqlc.GetAnalysisProgressParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return row, readError("task progress", err)
	}
	return row, nil
}

// TaskCursor is the position after which the next page of a task list starts: the
// (created_at, id) of the last task shown, which the list index is ordered by.
type TaskCursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// String encodes the cursor for a URL: microseconds since the epoch (the precision
// PostgreSQL keeps), an underscore and the task id.
func (c TaskCursor) String() string {
	return strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "_" + c.ID.String()
}

// ErrBadCursor means a cursor did not come from TaskCursor.String.
var ErrBadCursor = errors.New("store: bad task list cursor")

// ParseTaskCursor decodes TaskCursor.String.
func ParseTaskCursor(s string) (TaskCursor, error) {
	micros, id, ok := strings.Cut(s, "_")
	if !ok {
		return TaskCursor{}, ErrBadCursor
	}
	us, err := strconv.ParseInt(micros, 10, 64)
	if err != nil {
		return TaskCursor{}, ErrBadCursor
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return TaskCursor{}, ErrBadCursor
	}
	return TaskCursor{CreatedAt: time.UnixMicro(us).UTC(), ID: u}, nil
}

// TaskPage is one page of an owner's tasks, newest first. Next is nil on the last page.
type TaskPage struct {
	Tasks []dbsqlc.ListAnalysisTasksRow
	Next  *TaskCursor
}

// ListTasks returns up to limit of owner's tasks created before after (nil for the
// first page), newest first. It reads one row more than it shows to know whether an
// older page exists.
func (s *Store) ListTasks(ctx context.Context, owner Owner, after *TaskCursor, limit int) (TaskPage, error) {
	arg := dbsqlc.ListAnalysisTasksParams{OwnerUserID: owner.UserID(), MaxRows: int32(limit + 1)}
	if after != nil {
		arg.BeforeCreatedAt, arg.BeforeID = &after.CreatedAt, &after.ID
	}
	rows, err := s.q.ListAnalysisTasks(ctx, s.pool, arg)
	if err != nil {
		return TaskPage{}, fmt.Errorf("store: list tasks: %w", err)
	}
	page := TaskPage{Tasks: rows}
	if len(rows) > limit {
		page.Tasks = rows[:limit]
		last := page.Tasks[limit-1]
		page.Next = &TaskCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

// CancelTask asks owner's task to stop and returns its status afterwards: a pending
// task is canceled at once; a running one stays running until its worker, told
// through a notification (or at its next heartbeat), stops and ends it canceled. A
// finished task is left as it is and its status returned. A task that does not exist
// or belongs to someone else is ErrNotFound.
func (s *Store) CancelTask(ctx context.Context, id uuid.UUID, owner Owner) (taskstate.Status, error) {
	row, err := s.q.RequestTaskCancel(ctx, s.pool, dbsqlc.RequestTaskCancelParams{ID: id, OwnerUserID: owner.UserID()})
	if err == nil {
		return row.Status, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("store: cancel task: %w", err)
	}
	progress, err := s.TaskProgress(ctx, id, owner)
	if err != nil {
		return "", err
	}
	return progress.Status, nil
}

// Rerun is the task a re-run created.
type Rerun struct {
	ID            uuid.UUID
	Conversations int
}

// ErrTooManyReruns refuses a re-run while the owner has as many unfinished (pending or
// running) as RerunTask allows.
var ErrTooManyReruns = errors.New("store: too many unfinished re-runs")

// ErrTooManyUnfinished refuses a new task, uploaded or re-run, while the owner has as
// many tasks waiting or running as allowed.
var ErrTooManyUnfinished = errors.New("store: too many unfinished tasks")

// Limits cap what one owner may have waiting or running at once; 0 is no cap.
type Limits struct {
	Unfinished int // tasks, uploads and re-runs together
	Reruns     int // re-runs, each a copy of every conversation of its task
}

// newTaskLockClass is the first key of the advisory lock that serialises an owner's
// new tasks (LockOwner); the second is the owner. It is the key re-runs took
// alone before ("rrn"), so that in a rolling deploy the re-runs of either version
// still wait for each other.
const newTaskLockClass = 0x72726e

// newTaskTx is the isolation of a transaction that creates a task under the owner's
// lock: READ COMMITTED whatever the database's default, so the count taken once the
// lock is held sees the task its last holder committed.
var newTaskTx = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}

// checkLimits waits for owner's new-task lock in tx, held until tx ends, then refuses
// with ErrTooManyReruns or ErrTooManyUnfinished when one more task (a re-run when
// rerun is set) would pass limits. except is a task of tx's own not to count; op
// names the caller in other errors.
func (s *Store) checkLimits(ctx context.Context, tx pgx.Tx, op string, owner Owner, limits Limits, rerun bool, except *uuid.UUID) error {
	if err := s.q.LockOwner(ctx, tx, dbsqlc.LockOwnerParams{LockClass: newTaskLockClass, OwnerUserID: owner.UserID()}); err != nil {
		return fmt.Errorf("store: %s: lock: %w", op, err)
	}
	n, err := s.q.CountUnfinishedTasks(ctx, tx, dbsqlc.CountUnfinishedTasksParams{OwnerUserID: owner.UserID(), Except: except})
	if err != nil {
		return fmt.Errorf("store: %s: count unfinished tasks: %w", op, err)
	}
	switch {
	case rerun && limits.Reruns > 0 && int(n.Reruns) >= limits.Reruns:
		return ErrTooManyReruns
	case limits.Unfinished > 0 && int(n.Unfinished) >= limits.Unfinished:
		return ErrTooManyUnfinished
	}
	return nil
}

// UnfinishedTasks counts owner's tasks waiting or running, for a refusal before an
// upload is read; the count that holds is the one Publish makes under the lock.
func (s *Store) UnfinishedTasks(ctx context.Context, owner Owner) (int, error) {
	n, err := s.q.CountUnfinishedTasks(ctx, s.pool, dbsqlc.CountUnfinishedTasksParams{OwnerUserID: owner.UserID()})
	if err != nil {
		return 0, fmt.Errorf("store: count unfinished tasks: %w", err)
	}
	return int(n.Unfinished), nil
}

// RerunTask starts a new pending task for owner from the conversations of task id, and
// wakes the workers, in one transaction, unless that passes limits (ErrTooManyReruns,
// ErrTooManyUnfinished). The results of the old task are left as they are. A task that
// does not exist or belongs to someone else is ErrNotFound.
func (s *Store) RerunTask(ctx context.Context, id uuid.UUID, owner Owner, limits Limits) (Rerun, error) {
	tx, err := s.pool.BeginTx(ctx, newTaskTx)
	if err != nil {
		return Rerun{}, fmt.Errorf("store: rerun task: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// A task that is not the owner's is ErrNotFound, however full the owner's queue.
	if _, err := s.q.GetAnalysisTaskState(ctx, tx, dbsqlc.GetAnalysisTaskStateParams{ID: id, OwnerUserID: owner.UserID()}); err != nil {
		return Rerun{}, readError("rerun task", err)
	}
	if err := s.checkLimits(ctx, tx, "rerun task", owner, limits, true, nil); err != nil {
		return Rerun{}, err
	}
	row, err := s.q.RerunAnalysisTask(ctx, tx, dbsqlc.RerunAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return Rerun{}, readError("rerun task", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return Rerun{}, fmt.Errorf("store: rerun task: %w", err)
	}
	return Rerun{ID: row.ID, Conversations: int(row.Conversations)}, nil
}

// DeleteTask deletes owner's task and, through the foreign keys, everything stored
// about it. A task that does not exist or belongs to someone else is ErrNotFound. When
// the run carried outcome labels, its agent's detector is trained again without them,
// in the same transaction (RequestLearning).
func (s *Store) DeleteTask(ctx context.Context, id uuid.UUID, owner Owner) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := s.q.DeleteAnalysisTask(ctx, tx, dbsqlc.DeleteAnalysisTaskParams{ID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	if len(rows) == 0 {
		return ErrNotFound
	}
	if row := rows[0]; row.Labelled && row.AgentID != nil {
		if err := s.requestLearning(ctx, tx, owner, *row.AgentID, nil); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: delete task: %w", err)
	}
	return nil
}
