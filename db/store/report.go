package store

import (
	"context"
	"fmt"
	"iter"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// ReportDetail says how much of a task a report read loads.
type ReportDetail int

// The two reads: the task page needs the ranked Actions and their evidence, and how
// many conversations each cluster covers; ReportFull holds which conversations, and
// every finding and conversation, as well.
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
	Task         dbsqlc.AnalysisTask
	Agent        string // the name of the task's agent; "" for a task without one
	Usage        []dbsqlc.TaskUsage
	Warnings     []dbsqlc.TaskWarning
	WarningCount int64
	Clusters     []dbsqlc.ListTaskClustersRow
	// ClusterConversations are the conversations of each cluster, for report.json:
	// read for a download (WithTaskReport) and at ReportFull only, nil when not read.
	ClusterConversations []dbsqlc.ListClusterConversationsRow
	Actions              []dbsqlc.ListTaskActionsRow
	Evidence             []dbsqlc.ListTaskClusterEvidenceRow
	Drivers              []dbsqlc.ListTaskDriversRow
	Findings             []dbsqlc.ListTaskFindingsRow              // ReportFull only
	Conversations        []dbsqlc.ListTaskConversationSummariesRow // ReportFull only
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
	if r.Task.AgentID != nil {
		agent, err := s.q.GetAgent(ctx, tx, dbsqlc.GetAgentParams{ID: *r.Task.AgentID, OwnerUserID: uid})
		if err != nil {
			return r, fmt.Errorf("agent: %w", err)
		}
		r.Agent = agent.Name
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
	if r.Drivers, err = s.q.ListTaskDrivers(ctx, tx, dbsqlc.ListTaskDriversParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return r, fmt.Errorf("drivers: %w", err)
	}
	if detail != ReportFull {
		return r, nil
	}
	if r.ClusterConversations, err = s.clusterConversations(ctx, tx, id, owner); err != nil {
		return r, err
	}
	lists := s.lists(ctx, tx, r.Task)
	for f, err := range lists.Findings() {
		if err != nil {
			return r, err
		}
		r.Findings = append(r.Findings, f)
	}
	for c, err := range lists.Conversations() {
		if err != nil {
			return r, err
		}
		r.Conversations = append(r.Conversations, c)
	}
	return r, nil
}

// WithTaskReport reads a task and its results for owner as TaskReport does at
// ReportPage detail, with the clusters' conversations, and calls fn with them inside
// the same read-only snapshot, with the task's long lists — every finding,
// conversation and warning — to be read a page at a time: a download writes them as it
// reads them instead of holding them all.
func (s *Store) WithTaskReport(ctx context.Context, id uuid.UUID, owner Owner, fn func(ReportRows, *ReportLists) error) error {
	var fnErr error // fn's own error, returned as it is
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			rows, err := s.readReport(ctx, tx, id, owner, ReportPage)
			if err != nil {
				return err
			}
			if rows.ClusterConversations, err = s.clusterConversations(ctx, tx, id, owner); err != nil {
				return err
			}
			fnErr = fn(rows, s.lists(ctx, tx, rows.Task))
			return fnErr
		})
	switch {
	case fnErr != nil:
		return fnErr
	case err != nil:
		return readError("task report", err)
	}
	return nil
}

// clusterConversations reads which conversations each of the task's clusters covers.
func (s *Store) clusterConversations(ctx context.Context, tx pgx.Tx, id uuid.UUID, owner Owner) ([]dbsqlc.ListClusterConversationsRow, error) {
	rows, err := s.q.ListClusterConversations(ctx, tx, dbsqlc.ListClusterConversationsParams{TaskID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return nil, fmt.Errorf("clusters' conversations: %w", err)
	}
	return rows, nil
}

// listPage is how many conversations a page of the long lists covers (their findings,
// for the findings), and how many warnings it holds.
const listPage = 500

// ReportLists reads a task's findings, conversations and warnings a page at a time, in
// the snapshot it was made in, and only while that lasts: pages of conversations are
// ranges of seq (see db/queries/task_conversation.sql), so each costs its rows whatever
// the plan.
type ReportLists struct {
	ctx   context.Context // the snapshot's, which its transaction runs with
	q     *dbsqlc.Queries
	tx    pgx.Tx
	id    uuid.UUID
	owner int64
	last  int32 // the task's last seq
}

func (s *Store) lists(ctx context.Context, tx pgx.Tx, task dbsqlc.AnalysisTask) *ReportLists {
	return &ReportLists{ctx: ctx, q: s.q, tx: tx, id: task.ID, owner: task.OwnerUserID, last: task.ConversationCount}
}

// Findings yields every finding of the task in conversation order.
func (l *ReportLists) Findings() iter.Seq2[dbsqlc.ListTaskFindingsRow, error] {
	return pages(l.last, func(after int32) ([]dbsqlc.ListTaskFindingsRow, error) {
		rows, err := l.q.ListTaskFindings(l.ctx, l.tx, dbsqlc.ListTaskFindingsParams{
			TaskID: l.id, OwnerUserID: l.owner, AfterSeq: after, ThroughSeq: after + listPage})
		if err != nil {
			return nil, fmt.Errorf("store: findings: %w", err)
		}
		return rows, nil
	})
}

// Conversations yields one line per conversation of the task in upload order.
func (l *ReportLists) Conversations() iter.Seq2[dbsqlc.ListTaskConversationSummariesRow, error] {
	return pages(l.last, func(after int32) ([]dbsqlc.ListTaskConversationSummariesRow, error) {
		rows, err := l.q.ListTaskConversationSummaries(l.ctx, l.tx, dbsqlc.ListTaskConversationSummariesParams{
			TaskID: l.id, OwnerUserID: l.owner, AfterSeq: after, ThroughSeq: after + listPage})
		if err != nil {
			return nil, fmt.Errorf("store: conversations: %w", err)
		}
		return rows, nil
	})
}

// Warnings yields every warning of the task in the order they were made.
func (l *ReportLists) Warnings() iter.Seq2[dbsqlc.TaskWarning, error] {
	return func(yield func(dbsqlc.TaskWarning, error) bool) {
		after := int64(0)
		for {
			rows, err := l.q.ListTaskWarnings(l.ctx, l.tx, dbsqlc.ListTaskWarningsParams{
				TaskID: l.id, OwnerUserID: l.owner, AfterID: after, MaxRows: listPage})
			if err != nil {
				yield(dbsqlc.TaskWarning{}, fmt.Errorf("store: warnings: %w", err))
				return
			}
			for _, w := range rows {
				if !yield(w, nil) {
					return
				}
			}
			if len(rows) < listPage {
				return
			}
			after = rows[len(rows)-1].ID
		}
	}
}

// pages yields the rows read for each range of listPage seqs up to last.
func pages[T any](last int32, read func(after int32) ([]T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for after := int32(0); after < last; after += listPage {
			rows, err := read(after)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, row := range rows {
				if !yield(row, nil) {
					return
				}
			}
		}
	}
}

// ConversationRows is what the conversation page shows: the task it belongs to, the
// conversation with its messages, and the findings made about it with their clusters'
// standing.
type ConversationRows struct {
	Task         dbsqlc.AnalysisTask
	Conversation dbsqlc.TaskConversation
	Findings     []dbsqlc.TaskFinding
	// Clusters is the standing of the findings' clusters: whether each is expected
	// behaviour, by whose word.
	Clusters []dbsqlc.ListConversationClusterStandingsRow
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
			if r.Findings, err = s.q.ListConversationFindings(ctx, tx, dbsqlc.ListConversationFindingsParams{
				TaskID: id, OwnerUserID: uid, Seq: seq}); err != nil {
				return err
			}
			r.Clusters, err = s.q.ListConversationClusterStandings(ctx, tx, dbsqlc.ListConversationClusterStandingsParams{
				TaskID: id, OwnerUserID: uid, Seq: seq})
			return err
		})
	if err != nil {
		return ConversationRows{}, readError("conversation", err)
	}
	return r, nil
}

// FirstMessages is the stored messages (JSON) of the task's first conversation, the
// owner's only; ErrNotFound when there is none. The compare page reads the agent's
// system prompt from it.
func (s *Store) FirstMessages(ctx context.Context, id uuid.UUID, owner Owner) ([]byte, error) {
	c, err := s.q.GetTaskConversation(ctx, s.pool, dbsqlc.GetTaskConversationParams{TaskID: id, OwnerUserID: owner.UserID(), Seq: 1})
	if err != nil {
		return nil, readError("first conversation", err)
	}
	return c.Messages, nil
}
