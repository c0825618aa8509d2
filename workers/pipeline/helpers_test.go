package pipeline_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// samplePath is the 100-conversation airline sample (tau-bench, see testdata/README.md).
var samplePath = filepath.Join("..", "..", "testdata", "airline-100.jsonl")

// bundle is a database of the test's own (workers claim any task in it), with one
// user who owns the tasks.
type bundle struct {
	pool  *pgxpool.Pool
	url   string // the database's URL, for a pool of a test's own
	store *store.Store
	owner store.Owner
	q     *dbsqlc.Queries
}

func setup(tb testing.TB) *bundle {
	tb.Helper()
	pool, url := dbtest.Isolated(tb)
	q := dbsqlc.New()
	return &bundle{pool: pool, url: url, store: store.New(pool), owner: workertest.Owner(tb, pool, "owner"), q: q}
}

// uploadSample creates a task from the sample file as an upload does: parsed with
// app/ingest and stored with its conversations in one transaction.
func (b *bundle) uploadSample(tb testing.TB) uuid.UUID {
	tb.Helper()
	return workertest.CreateTask(tb, b.store, b.owner, store.NewTask{Title: "airline sample", SourceFilename: "airline-100.jsonl"}, sample(tb))
}

// upload creates a task from conversations.
func (b *bundle) upload(tb testing.TB, convs []transcript.Conversation) uuid.UUID {
	tb.Helper()
	return workertest.CreateTask(tb, b.store, b.owner, store.NewTask{Title: "test"}, convs)
}

// sample reads the sample's conversations, for tests that compare with the stored ones.
func sample(tb testing.TB) []transcript.Conversation {
	tb.Helper()
	f, err := os.Open(samplePath)
	require.NoError(tb, err)
	defer f.Close()
	var convs []transcript.Conversation
	_, err = ingest.Parse(f, ingest.Limits{}, func(c transcript.Conversation) error {
		convs = append(convs, c)
		return nil
	})
	require.NoError(tb, err)
	require.Len(tb, convs, 100)
	return convs
}

// startWorker starts a worker running p, stopped when the test ends.
func (b *bundle) startWorker(tb testing.TB, p *pipeline.Pipeline, cfg workers.Config) *workers.Worker {
	tb.Helper()
	return workertest.StartWorker(tb, b.pool, p, cfg, testLogger(tb))
}

// runTask runs the task to its end with a worker on a, and returns the task row.
func (b *bundle) runTask(tb testing.TB, id uuid.UUID, a analyzer.Analyzer, opt pipeline.Options) dbsqlc.AnalysisTask {
	tb.Helper()
	b.startWorker(tb, pipeline.New(b.pool, a, workertest.Options(opt)), workers.Config{})
	return b.waitTerminal(tb, id, time.Minute)
}

func (b *bundle) task(tb testing.TB, id uuid.UUID) dbsqlc.AnalysisTask {
	tb.Helper()
	task, err := b.q.GetAnalysisTask(context.Background(), b.pool, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: b.owner.UserID()})
	require.NoError(tb, err)
	return task
}

// waitTerminal polls the task until it has finished.
func (b *bundle) waitTerminal(tb testing.TB, id uuid.UUID, timeout time.Duration) dbsqlc.AnalysisTask {
	tb.Helper()
	var task dbsqlc.AnalysisTask
	waitFor(tb, timeout, "the task to finish", func() bool {
		task = b.task(tb, id)
		return task.FinishedAt != nil
	})
	return task
}

// waitFor polls cond until it holds, failing the test after timeout.
var waitFor = workertest.WaitFor

// report reads everything stored about the task.
func (b *bundle) report(tb testing.TB, id uuid.UUID) store.ReportRows {
	tb.Helper()
	rows, err := b.store.TaskReport(context.Background(), id, b.owner, store.ReportFull)
	require.NoError(tb, err)
	return rows
}

func (b *bundle) warnings(tb testing.TB, id uuid.UUID) []dbsqlc.TaskWarning {
	tb.Helper()
	ws, err := b.q.ListTaskWarnings(context.Background(), b.pool, dbsqlc.ListTaskWarningsParams{TaskID: id, OwnerUserID: b.owner.UserID(), MaxRows: 10_000})
	require.NoError(tb, err)
	return ws
}

func testLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// probe wraps an analyzer at the model boundary: it counts calls per conversation and
// per cluster, measures how many Action calls are in flight, and lets a test fail or
// hold a call.
type probe struct {
	next analyzer.Analyzer

	// onDiagnose and onAction, when set, run before the call; an error is returned
	// instead of calling next.
	onDiagnose func(ctx context.Context, conv transcript.Conversation) error
	onAction   func(ctx context.Context, brief analyzer.ClusterBrief) error
	// changeDiagnosis and changeAction, when set, change what the analyzer answered, as an
	// analyzer that does not clean its output would answer.
	changeDiagnosis func(conv transcript.Conversation, d *analyzer.Diagnosis)
	changeAction    func(a *analyzer.Action)

	mu          sync.Mutex
	diagnosed   map[string]int // conversation id → calls
	actions     map[string]int // cluster title → calls
	completions []string       // cluster titles in the order their calls returned

	inFlight, peak         atomic.Int32 // Action calls
	diagInFlight, diagPeak atomic.Int32 // diagnosis calls
}

// track counts one more call in flight and raises the peak; the returned func ends it.
func track(inFlight, peak *atomic.Int32) func() {
	now := inFlight.Add(1)
	for {
		p := peak.Load()
		if now <= p || peak.CompareAndSwap(p, now) {
			break
		}
	}
	return func() { inFlight.Add(-1) }
}

func newProbe(next analyzer.Analyzer) *probe {
	return &probe{next: next, diagnosed: map[string]int{}, actions: map[string]int{}}
}

func (p *probe) Info() analyzer.Info { return p.next.Info() }

func (p *probe) Diagnose(ctx context.Context, conv transcript.Conversation) (analyzer.Result[analyzer.Diagnosis], error) {
	defer track(&p.diagInFlight, &p.diagPeak)()
	p.mu.Lock()
	p.diagnosed[conv.ID]++
	p.mu.Unlock()
	if p.onDiagnose != nil {
		if err := p.onDiagnose(ctx, conv); err != nil {
			return analyzer.Result[analyzer.Diagnosis]{}, err
		}
	}
	res, err := p.next.Diagnose(ctx, conv)
	if err == nil && p.changeDiagnosis != nil {
		p.changeDiagnosis(conv, &res.Value)
	}
	return res, err
}

func (p *probe) WriteAction(ctx context.Context, brief analyzer.ClusterBrief) (analyzer.Result[analyzer.Action], error) {
	defer track(&p.inFlight, &p.peak)()
	p.mu.Lock()
	p.actions[brief.Title]++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.completions = append(p.completions, brief.Title)
		p.mu.Unlock()
	}()
	if p.onAction != nil {
		if err := p.onAction(ctx, brief); err != nil {
			return analyzer.Result[analyzer.Action]{}, err
		}
	}
	res, err := p.next.WriteAction(ctx, brief)
	if err == nil && p.changeAction != nil {
		p.changeAction(&res.Value)
	}
	return res, err
}

// diagnoses returns the number of Diagnose calls.
func (p *probe) diagnoses() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.diagnosed {
		n += c
	}
	return n
}

func (p *probe) actionCalls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.actions {
		n += c
	}
	return n
}

func offlineProbe() *probe { return newProbe(offline.New(offline.Options{})) }

// storedConfig reads the TaskConfig the run stored on the task.
func storedConfig(tb testing.TB, task dbsqlc.AnalysisTask) pipeline.TaskConfig {
	tb.Helper()
	var cfg pipeline.TaskConfig
	require.NoError(tb, json.Unmarshal(task.Config, &cfg))
	return cfg
}

// requireRanked checks that the written Actions are ranked 1..N without gaps in
// candidate order, and returns the cluster index of each rank.
func requireRanked(tb testing.TB, actions []dbsqlc.ListTaskActionsRow) []int32 {
	tb.Helper()
	var clusters []int32
	lastCandidate := int32(-1)
	for _, a := range actions {
		if a.Status != "done" {
			require.Nil(tb, a.Rank, "a failed Action has no rank")
			continue
		}
		require.NotNil(tb, a.Rank)
		require.Equal(tb, int32(len(clusters)+1), *a.Rank, "ranks are 1..N without gaps")
		require.Greater(tb, a.CandidateIndex, lastCandidate, "ranks follow candidate order")
		lastCandidate = a.CandidateIndex
		clusters = append(clusters, a.ClusterIdx)
	}
	return clusters
}

// clusterSeqs is which conversations each cluster of rows (read at ReportFull) covers,
// by the cluster's idx.
func clusterSeqs(rows store.ReportRows) map[int32][]int32 {
	seqs := map[int32][]int32{}
	for _, c := range rows.ClusterConversations {
		seqs[c.Idx] = c.ConversationSeqs
	}
	return seqs
}
