package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// ReportDetail says how much of a task a report read loads.
type ReportDetail int

// The two reads: the task page needs the ranked Actions and their evidence; the
// downloads need every finding and conversation as well.
const (
	ReportPage ReportDetail = iota
	ReportFull
)

// Warnings the page lists before it says how many more there are.
const (
	pageWarnings = 100
	allWarnings  = 1_000_000
)

// ReportRows is everything stored about one task, read in one snapshot so the counts,
// ranks and quotes of a report always agree with each other even while the worker is
// still writing.
type ReportRows struct {
	Task          dbsqlc.AnalysisTask
	Usage         []dbsqlc.TaskUsage
	Warnings      []dbsqlc.TaskWarning
	WarningCount  int64
	Clusters      []dbsqlc.TaskCluster
	Actions       []dbsqlc.ListTaskActionsRow
	Evidence      []dbsqlc.ListTaskClusterEvidenceRow
	Labels        dbsqlc.CountConversationLabelsRow
	Drivers       []dbsqlc.ListTaskDriversRow
	Findings      []dbsqlc.ListTaskFindingsRow              // ReportFull only
	Conversations []dbsqlc.ListTaskConversationSummariesRow // ReportFull only
}

// TaskReport reads a task and its results for owner in one REPEATABLE READ, read-only
// transaction. A task that does not exist or belongs to someone else is ErrNotFound.
func (s *Store) TaskReport(ctx context.Context, id uuid.UUID, owner Owner, detail ReportDetail) (ReportRows, error) {
	var rows ReportRows
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var err error
			rows, err = s.readReport(ctx, tx, id, owner, detail)
			return err
		})
	if err != nil {
		return ReportRows{}, readError("task report", err)
	}
	return rows, nil
}

func (s *Store) readReport(ctx context.Context, tx pgx.Tx, id uuid.UUID, owner Owner, detail ReportDetail) (ReportRows, error) {
	var r ReportRows
	var err error
	uid := owner.UserID()
	if r.Task, err = s.q.GetAnalysisTask(ctx, tx, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: uid}); err != nil {
		return r, err
	}
	if r.Usage, err = s.q.ListTaskUsage(ctx, tx, dbsqlc.ListTaskUsageParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("usage: %w", err)
	}
	limit := int32(pageWarnings)
	if detail == ReportFull {
		limit = allWarnings
	}
	if r.Warnings, err = s.q.ListTaskWarnings(ctx, tx, dbsqlc.ListTaskWarningsParams{TaskID: id, OwnerUserID: uid, MaxRows: limit}); err != nil {
		return r, fmt.Errorf("warnings: %w", err)
	}
	if r.WarningCount, err = s.q.CountTaskWarnings(ctx, tx, dbsqlc.CountTaskWarningsParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("count warnings: %w", err)
	}
	if r.Clusters, err = s.q.ListTaskClusters(ctx, tx, dbsqlc.ListTaskClustersParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("clusters: %w", err)
	}
	if r.Actions, err = s.q.ListTaskActions(ctx, tx, dbsqlc.ListTaskActionsParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("actions: %w", err)
	}
	if r.Evidence, err = s.q.ListTaskClusterEvidence(ctx, tx, dbsqlc.ListTaskClusterEvidenceParams{
		TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("evidence: %w", err)
	}
	if r.Labels, err = s.q.CountConversationLabels(ctx, tx, dbsqlc.CountConversationLabelsParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("labels: %w", err)
	}
	if r.Drivers, err = s.q.ListTaskDrivers(ctx, tx, dbsqlc.ListTaskDriversParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("drivers: %w", err)
	}
	if detail != ReportFull {
		return r, nil
	}
	if r.Findings, err = s.q.ListTaskFindings(ctx, tx, dbsqlc.ListTaskFindingsParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("findings: %w", err)
	}
	if r.Conversations, err = s.q.ListTaskConversationSummaries(ctx, tx, dbsqlc.ListTaskConversationSummariesParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("conversations: %w", err)
	}
	return r, nil
}

// ConversationRows is what the conversation page shows: the task it belongs to, the
// conversation with its messages, and the findings made about it.
type ConversationRows struct {
	Task         dbsqlc.AnalysisTask
	Conversation dbsqlc.TaskConversation
	Findings     []dbsqlc.TaskFinding
}

// Conversation reads conversation seq of owner's task id in one read-only snapshot. A
// task or conversation that does not exist, or a task of someone else, is ErrNotFound.
func (s *Store) Conversation(ctx context.Context, id uuid.UUID, seq int32, owner Owner) (ConversationRows, error) {
	var r ConversationRows
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var err error
			if r.Task, err = s.q.GetAnalysisTask(ctx, tx, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: uid}); err != nil {
				return err
			}
			if r.Conversation, err = s.q.GetTaskConversation(ctx, tx, dbsqlc.GetTaskConversationParams{
				TaskID: id, OwnerUserID: uid, Seq: seq}); err != nil {
				return err
			}
			r.Findings, err = s.q.ListConversationFindings(ctx, tx, dbsqlc.ListConversationFindingsParams{
				TaskID: id, OwnerUserID: uid, Seq: seq})
			return err
		})
	if err != nil {
		return ConversationRows{}, readError("conversation", err)
	}
	return r, nil
}
