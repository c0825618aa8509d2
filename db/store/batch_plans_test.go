package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// The pipeline's batch writes find their rows by a range of seqs. Planned on statistics
// taken while an upload's COPY was not committed yet (autovacuum does that during large
// uploads), the table looks empty: the quality verdicts' join read every row of the task
// for each batch (the quality pass of 50,000 conversations took 3× its time), and the
// range alone walked every entry of the task in another index. Once the quality pass
// has refreshed the statistics, each write reads its batch's rows by the primary key.
func TestBatchWritesReadOnlyTheirRowsOnceAnalyzed(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.Isolated(t)
	ctx := context.Background()
	const conversations, batch = 20_000, 500
	var owner int64
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO app_user (provider, provider_user_id) VALUES ('test', 'plans') RETURNING id`).Scan(&owner))
	task := uuid.New()
	_, err := pool.Exec(ctx, `INSERT INTO analysis_task (id, owner_user_id, title, status, attempt) VALUES ($1, $2, 'plans', 'running', 1)`, task, owner)
	require.NoError(t, err)
	upload, err := pool.Begin(ctx)
	require.NoError(t, err)
	_, err = upload.Exec(ctx, `INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count, diagnosis_status)
		SELECT $1, $2, i, 'c' || i, '[]', 3, 'pending' FROM generate_series(1, $3::int) AS i`, task, owner, conversations)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ANALYZE task_conversation`) // sees none of the upload's rows
	require.NoError(t, err)
	require.NoError(t, upload.Commit(ctx))
	q := dbsqlc.New()
	require.NoError(t, q.MaintenanceAnalyzeConversations(ctx, pool), "what the quality pass of a large task runs first")

	seqs := make([]int32, batch)
	for i := range seqs {
		seqs[i] = int32(conversations/2 + i)
	}
	fill := func(v string) []string {
		s := make([]string, batch)
		for i := range s {
			s[i] = v
		}
		return s
	}
	t.Run("SetConversationQuality", func(t *testing.T) {
		hashes := make([][]byte, batch)
		for i := range hashes {
			hashes[i] = []byte{byte(i)}
		}
		scans := explained(t, pool, func(db dbsqlc.DBTX) error {
			_, err := q.SetConversationQuality(ctx, db, dbsqlc.SetConversationQualityParams{
				TaskID: task, OwnerUserID: owner, FirstSeq: seqs[0], QcStatuses: fill("kept"), QcReasons: fill(""),
				ContentHashes: hashes, Flags: fill("[]"),
			})
			return err
		})
		scans.requireBatchByPrimaryKey(t, batch)
	})
	t.Run("StoreConversationDiagnoses", func(t *testing.T) {
		zeros := make([]int32, batch)
		tokens := make([]int64, batch)
		scans := explained(t, pool, func(db dbsqlc.DBTX) error {
			_, err := q.StoreConversationDiagnoses(ctx, db, dbsqlc.StoreConversationDiagnosesParams{
				Seqs: seqs, Diagnoses: fill(`{"findings": [], "failureScore": 0}`), Passes: fill("first_pass"),
				Calls: zeros, PromptTokens: tokens, CompletionTokens: tokens, TaskID: task, OwnerUserID: owner, Attempt: 1,
			})
			return err
		})
		scans.requireBatchByPrimaryKey(t, batch)
	})
}

// explained runs write with a DBTX that runs its statement under EXPLAIN ANALYZE in a
// transaction rolled back, and returns the plan's scans of task_conversation.
func explained(t *testing.T, pool *pgxpool.Pool, write func(dbsqlc.DBTX) error) scans {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	db := &explainer{tx: tx}
	require.NoError(t, write(db))
	require.NotEmpty(t, db.plan, "the statement ran")
	var plans []struct{ Plan planNode }
	require.NoError(t, json.Unmarshal(db.plan, &plans))
	var s scans
	plans[0].Plan.scansOf("task_conversation", &s)
	return s
}

// scans are the scans of one table in a plan: the indexes they read, and the rows they
// returned or removed over all their loops.
type scans struct {
	indexes []string
	rows    int64
}

func (s scans) requireBatchByPrimaryKey(t *testing.T, batch int) {
	t.Helper()
	require.Equal(t, []string{"task_conversation_pkey"}, s.indexes, "read by the primary key's range of seqs")
	require.LessOrEqual(t, s.rows, int64(batch), "only the batch's rows")
}

// explainer is a DBTX that explains the statements it is given instead of running
// them, keeping the plan.
type explainer struct {
	tx   pgx.Tx
	plan []byte
}

func (e *explainer) explain(ctx context.Context, sql string, args ...any) error {
	return e.tx.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...).Scan(&e.plan)
}

func (e *explainer) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, e.explain(ctx, sql, args...)
}

func (e *explainer) Query(context.Context, string, ...any) (pgx.Rows, error) {
	panic("explainer: Query is not used by the batch writes")
}

func (e *explainer) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return explainedRow{e.explain(ctx, sql, args...)}
}

// explainedRow is the row of an explained statement: nothing to scan.
type explainedRow struct{ err error }

func (r explainedRow) Scan(...any) error { return r.err }

// planNode is a node of EXPLAIN's JSON.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	ActualRows   float64    `json:"Actual Rows"`
	ActualLoops  float64    `json:"Actual Loops"`
	RemovedRows  float64    `json:"Rows Removed by Filter"`
	Plans        []planNode `json:"Plans"`
}

// scansOf adds the scans of relation under n to s; a sequential scan reads no index
// (""), a bitmap scan the indexes of its bitmap.
func (n planNode) scansOf(relation string, s *scans) {
	if n.RelationName == relation && n.NodeType != "ModifyTable" {
		indexes := n.bitmapIndexes()
		if n.IndexName != "" || len(indexes) == 0 {
			indexes = []string{n.IndexName}
		}
		s.indexes = append(s.indexes, indexes...)
		s.rows += int64((n.ActualRows + n.RemovedRows) * n.ActualLoops)
	}
	for _, c := range n.Plans {
		c.scansOf(relation, s)
	}
}

// bitmapIndexes are the indexes the bitmap index scans under n read.
func (n planNode) bitmapIndexes() []string {
	var out []string
	for _, c := range n.Plans {
		if c.NodeType == "Bitmap Index Scan" {
			out = append(out, c.IndexName)
		}
		out = append(out, c.bitmapIndexes()...)
	}
	return out
}
