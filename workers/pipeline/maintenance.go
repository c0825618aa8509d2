package pipeline

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// analyzeAtLeast is the size of task from which the quality pass first refreshes the
// planner's statistics of task_conversation, and diagnosis last those of the tables it
// and the quality pass wrote: a small upload changes them little, and the refresh
// reads a sample of the whole table.
const analyzeAtLeast = 1000

// maintenanceFn is work that only makes what follows faster (a refresh of the
// planner's statistics, a merge of the words' index's pending list), and that a task
// goes on without when it fails.
type maintenanceFn func(context.Context, dbsqlc.DBTX) error

// insufficientPrivilege is PostgreSQL's SQLSTATE for a statement the role may not run,
// here on an index it does not own.
const insufficientPrivilege = "42501"

const (
	statisticsNotRefreshed = "the planner's statistics could not be refreshed"
	searchPendingNotMerged = "the words' index's pending list could not be merged"
)

// refreshesStatistics says whether the task is large enough to refresh the planner's
// statistics (analyzeAtLeast).
func (r *run) refreshesStatistics() bool {
	return r.lease.Task.ConversationCount >= analyzeAtLeast
}

// analyzeResults refreshes the statistics of what diagnosis and the quality pass
// wrote: the columns the conversation list sorts and filters on, and the search
// documents. Until autovacuum analyzed them, up to a minute later, a search of a
// 40,000-conversation task was planned on what the tables held before it and took
// ~180 ms instead of ~15. Of the search documents only the task's partition is
// analyzed, by a statement built here since ANALYZE takes no parameters: the
// partitioned table's own statistics would sample every partition, and no query is
// planned on them, since each names its task. A task with no documents, its every
// conversation removed, has no partition to refresh.
func (r *run) analyzeResults(ctx context.Context, tx dbsqlc.DBTX) error {
	if err := r.q.MaintenanceAnalyzeConversations(ctx, tx); err != nil {
		return err
	}
	part, err := r.q.TaskSearchPartition(ctx, tx, dbsqlc.TaskSearchPartitionParams{TaskID: r.id, OwnerUserID: r.owner})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, "ANALYZE "+pgx.Identifier{part.SchemaName, part.TableName}.Sanitize())
	return err
}

// mergeSearchPending merges the pending list of the words' index that holds the
// task's search documents (MergeTaskSearchPending).
func (r *run) mergeSearchPending(ctx context.Context, tx dbsqlc.DBTX) error {
	return r.q.MergeTaskSearchPending(ctx, tx, dbsqlc.MergeTaskSearchPendingParams{TaskID: r.id, OwnerUserID: r.owner})
}

// maintain runs work in a transaction that waits for locks only briefly. When it
// fails (a lock held too long, a role that does not own the index it merges) the task
// goes on, and the log gives the warning with the error. A role that does not own the
// index fails so on every task: the pipeline warns of it once, and logs it at debug
// level after. (PostgreSQL does not fail such a role's ANALYZE: it skips the table
// with a notice, which nothing logs.)
func (r *run) maintain(ctx context.Context, stage taskstate.Stage, warning string, work maintenanceFn) {
	err := pgx.BeginFunc(ctx, r.p.pool, func(tx pgx.Tx) error {
		if err := r.q.LimitLockWait(ctx, tx); err != nil {
			return err
		}
		return work(ctx, tx)
	})
	if err == nil || ctx.Err() != nil {
		return
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == insufficientPrivilege {
		if _, warned := r.p.warnedNotOwner.LoadOrStore(warning, true); warned {
			r.lease.Logger().Debug(warning, "stage", stage, "err", err)
			return
		}
		r.lease.Logger().Warn(warning, "stage", stage, "err", err,
			"note", "the database role does not own the words' index: not said again until the server restarts")
		return
	}
	r.lease.Logger().Warn(warning, "stage", stage, "err", err)
}

// maintainBehind runs maintain beside the stages that follow, which do not need it, on
// a connection of its own; the run waits for it before it ends.
func (r *run) maintainBehind(ctx context.Context, stage taskstate.Stage, warning string, work maintenanceFn) {
	r.behind.Go(func() {
		do := func(stage taskstate.Stage) error {
			r.maintain(ctx, stage, warning, work)
			return nil
		}
		if err := protect(do, stage); err != nil { // a goroutine beyond the worker's recover
			r.lease.Logger().Error(warning, "stage", stage, "err", err)
		}
	})
}
