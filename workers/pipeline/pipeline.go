// Package pipeline is the work a task does (docs/architecture.md#pipeline-stages):
// quality checks that define the population, risk screening, one diagnosis per
// conversation, issue clusters, ranked Actions and the task's end. Pipeline is the
// workers.Handler that runs those stages on a claimed task; every finished unit is a
// checkpoint written in the lease's transaction, so a task that is taken over or handed
// back resumes where it stopped. The pure parts (quality.Checker, risk.Screener,
// cluster.Builder, cluster.SelectCandidates, cluster.AssignRanks) are usable and tested
// on their own.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/risk"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// Options tunes a Pipeline. The fields are plain values: app/config fills them from
// the settings and validates them, once.
type Options struct {
	// MinConversations is the fewest kept conversations a task needs; fewer end it
	// insufficient_data before any analyzer call. At least 1.
	MinConversations int
	// MaxDiagnosed caps the conversations diagnosed: every flagged one plus a sample
	// of the rest seeded by the task id. 0 diagnoses every kept conversation.
	MaxDiagnosed int
	// DiagnosisConcurrency and ActionConcurrency are the analyzer calls in flight per
	// task, at least 1.
	DiagnosisConcurrency int
	ActionConcurrency    int
	// SettingWarnings are settings corrected at start-up (config.Load's warnings, such
	// as an ACTION_CONCURRENCY out of range, each with the variable as its Setting);
	// each task repeats them as warnings, so its owner sees why it ran as it did.
	SettingWarnings []locale.Text
	// OutageMax is how long a task waits for a model provider that does not answer
	// before it fails with that reason (LLM_OUTAGE_MAX_MS); ProbeInterval is how often
	// it asks meanwhile (zero: every 10 s, not a setting). See outage.
	OutageMax     time.Duration
	ProbeInterval time.Duration
}

// probeInterval is how often a task waiting out a provider outage asks whether the
// provider answers again, unless Options.ProbeInterval says otherwise.
const probeInterval = 10 * time.Second

// Pipeline runs the diagnosis of a task. It implements workers.Handler and is safe
// for concurrent use: everything about one task lives in that task's run.
type Pipeline struct {
	pool     *pgxpool.Pool
	analyzer analyzer.Analyzer
	opt      Options
	warnings []locale.Text // the corrected settings, repeated on every task
	// en writes the English a warning is stored with beside its messages; enErr is why
	// the catalogs could not be loaded, which fails every task.
	en       *locale.Localizer
	enErr    error
	screener *risk.Screener
	q        *dbsqlc.Queries
	// warnedNotOwner holds the maintenance warnings given for a role that does not own
	// the tables, which every later task would give again (maintain).
	warnedNotOwner sync.Map
}

var _ workers.Handler = (*Pipeline)(nil)

// New returns a pipeline that reads a task's rows from pool (reads need no fence;
// every write goes through the lease) and calls a for diagnoses and Actions. It logs
// through each task's lease, with the task's id and attempt.
func New(pool *pgxpool.Pool, a analyzer.Analyzer, opt Options) *Pipeline {
	opt.ProbeInterval = cmp.Or(opt.ProbeInterval, probeInterval)
	p := &Pipeline{
		pool: pool, analyzer: a, opt: opt, warnings: opt.SettingWarnings,
		screener: risk.NewScreener(), q: dbsqlc.New(),
	}
	if words, err := locale.New(); err != nil {
		p.enErr = fmt.Errorf("pipeline: %w", err)
	} else {
		p.en = words.English()
	}
	return p
}

// Run runs the stages of one claimed task, skipping what an earlier attempt stored.
// It returns the task's terminal Outcome, or an error: the context's cause when the
// task is stopping (canceled, lease lost, shutdown), workers.ErrDraining when the
// worker drains between units, or an infrastructure error, which fails the task.
func (p *Pipeline) Run(ctx context.Context, lease *workers.Lease) (workers.Outcome, error) {
	if p.enErr != nil {
		return workers.Outcome{}, p.enErr
	}
	if lease.Task.Kind == taskstate.KindLearning {
		return p.runLearning(ctx, lease)
	}
	r := newRun(p, lease)
	defer r.close()
	if err := r.start(ctx); err != nil {
		return workers.Outcome{}, r.stopped(ctx, err)
	}
	outcome, err := r.stages(ctx)
	if pe := (*panicError)(nil); errors.As(err, &pe) {
		lease.Logger().Error("the task stopped on a panic", "panic", pe.value, "stack", string(pe.stack))
	}
	var down *providerDownError
	if errors.As(err, &down) && ctx.Err() == nil {
		return workers.Outcome{Status: taskstate.Failed, Error: down.sentence()}, nil
	}
	if err != nil {
		return workers.Outcome{}, r.stopped(ctx, err)
	}
	return outcome, nil
}

// stages runs the stages in order; a non-nil Outcome with a nil error ends the task
// early (too few conversations, nothing diagnosable).
func (r *run) stages(ctx context.Context) (workers.Outcome, error) {
	funnel, err := r.quality(ctx)
	if err != nil {
		return workers.Outcome{}, err
	}
	if funnel.Kept() < r.p.opt.MinConversations {
		return insufficient(funnel, r.p.opt.MinConversations), nil
	}
	if err := r.between(ctx); err != nil {
		return workers.Outcome{}, err
	}
	if err := r.risk(ctx); err != nil {
		return workers.Outcome{}, err
	}
	if err := r.between(ctx); err != nil {
		return workers.Outcome{}, err
	}
	counts, err := r.diagnose(ctx)
	if err != nil {
		return workers.Outcome{}, err
	}
	if counts.Done == 0 {
		return r.nothingDiagnosed(ctx, counts)
	}
	if err := r.between(ctx); err != nil {
		return workers.Outcome{}, err
	}
	r.analysed = int(counts.Done)
	if err := r.learn(ctx); err != nil {
		return workers.Outcome{}, err
	}
	if err := r.between(ctx); err != nil {
		return workers.Outcome{}, err
	}
	clusters, err := r.cluster(ctx)
	if err != nil {
		return workers.Outcome{}, err
	}
	if err := r.between(ctx); err != nil {
		return workers.Outcome{}, err
	}
	if err := r.actions(ctx, clusters); err != nil {
		return workers.Outcome{}, err
	}
	return r.finish(ctx, counts)
}

// between is checked before each stage: a draining worker or an ended context stops
// the task there.
func (r *run) between(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if r.lease.Draining() {
		return workers.ErrDraining
	}
	return nil
}

// stopped turns a stage's error into what Run returns: the context's cause once the
// task's context has ended (the worker settles by it), the error otherwise.
func (r *run) stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, workers.ErrDraining) {
		return context.Cause(ctx)
	}
	return err
}
