package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/checkup-dev/checkup/workers/quality"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/drivers"
)

// run is one attempt at one task: the lease every write goes through and the task's
// stored state as this attempt found it.
type run struct {
	p     *Pipeline
	lease *workers.Lease
	q     *dbsqlc.Queries
	id    uuid.UUID
	owner int64
	// state is the task row read at the start of the run: what earlier attempts stored.
	state dbsqlc.AnalysisTask
	// funnel is the population the quality stage defined (or an earlier attempt did).
	funnel quality.Funnel
	// analysed is the number of diagnosed conversations, the denominator of prevalence.
	analysed int
	// scored is set once the agent's detector scored the run's conversations (the
	// learning stage): the clusters then carry estimated failures.
	scored bool
	// outage pauses the model calls while the provider does not answer.
	outage *outage
	// kept holds the kept conversations decoded by this run's quality pass, for
	// diagnosis, when they fit (see keptBudget); nil when the pass was not run.
	kept *keptConversations
	// selectedKept is set when this run's quality pass selected every kept
	// conversation for diagnosis as it stored their verdicts.
	selectedKept bool
	// search counts the features of the labelled conversations once each group of
	// their diagnoses has committed, when this run diagnoses them all (none was
	// diagnosed before it); searched is set once it has. Otherwise the search reads them
	// back after diagnosis. During diagnosis only the checkpointer's counting goroutine
	// touches search and features; during clustering only the drivers' goroutine
	// (buildClusters), which also closes features.
	search   *drivers.Search
	searched bool
	// features logs what search counts, so the drivers' conversations are found
	// without reading them all again; nil without search or a temporary file.
	features *drivers.FeatureLog
	// behind runs what the stages after it do not need (merging the words' index's
	// pending list, the planner's statistics of the diagnosed task); the run waits for
	// it before it ends.
	behind sync.WaitGroup
}

func newRun(p *Pipeline, lease *workers.Lease) *run {
	r := &run{p: p, lease: lease, q: p.q, id: lease.Task.ID, owner: lease.Task.Owner.UserID()}
	r.outage = newOutage(r)
	return r
}

// close waits for the work left behind the stages and releases what the run holds
// outside the database.
func (r *run) close() {
	r.behind.Wait()
	r.closeFeatureLog()
}

// closeFeatureLog closes the feature log once it has been read, or the run ends.
func (r *run) closeFeatureLog() {
	if r.features == nil {
		return
	}
	if err := r.features.Close(); err != nil {
		r.lease.Logger().Warn("failure drivers: remove the feature log", "err", err)
	}
	r.features = nil
}

// start reads what earlier attempts stored and writes the TaskConfig this run works
// with. On the task's first run it also repeats the corrected settings as warnings;
// when a run resumes on an instance with another analyzer, a warning says the report
// mixes the two.
func (r *run) start(ctx context.Context) error {
	state, err := r.q.GetAnalysisTask(ctx, r.p.pool, dbsqlc.GetAnalysisTaskParams{ID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return fmt.Errorf("pipeline: read task: %w", err)
	}
	r.state = state
	var earlier TaskConfig
	_ = json.Unmarshal(state.Config, &earlier) // an empty or unknown config means no run started
	info := r.p.analyzer.Info()
	cfg, err := json.Marshal(TaskConfig{
		Analyzer:             info,
		DiagnosisConcurrency: r.p.opt.DiagnosisConcurrency,
		ActionConcurrency:    r.p.opt.ActionConcurrency,
		MaxDiagnosed:         r.p.opt.MaxDiagnosed,
		MinConversations:     r.p.opt.MinConversations,
	})
	if err != nil {
		return fmt.Errorf("pipeline: task config: %w", err)
	}
	return r.inTx(ctx, "task config", func(tx pgx.Tx) error {
		if _, err := r.q.SetTaskRunConfig(ctx, tx, dbsqlc.SetTaskRunConfigParams{
			Config: cfg, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		}); err != nil {
			return err
		}
		if _, err := r.q.SetTaskProviderDown(ctx, tx, dbsqlc.SetTaskProviderDownParams{ // an earlier attempt's wait
			ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		}); err != nil {
			return err
		}
		if earlier.Analyzer.Name != "" {
			if earlier.Analyzer == info {
				return nil
			}
			return r.warn(ctx, tx, taskstate.Settings, locale.Msg("task_warning.scope_analyzer"), locale.Msg(
				"task_warning.analyzer_changed", "Now", describe(info), "Before", describe(earlier.Analyzer)))
		}
		for _, w := range r.p.warnings {
			if err := r.warn(ctx, tx, taskstate.Settings, locale.Lit(w.Arg("Setting")), w); err != nil {
				return err
			}
		}
		return nil
	})
}

// describe names an analyzer for a warning: its label, model and prompt version.
func describe(a analyzer.Info) string {
	parts := []string{cmp.Or(a.Label, a.Name)}
	if a.Model != "" {
		parts = append(parts, a.Model)
	}
	if a.PromptVersion != "" {
		parts = append(parts, "prompts "+a.PromptVersion)
	}
	return strings.Join(parts, ", ")
}

// inTx runs fn in the lease's fenced transaction; what names the write in the error.
func (r *run) inTx(ctx context.Context, what string, fn func(pgx.Tx) error) error {
	if err := r.lease.InTx(ctx, fn); err != nil {
		return fmt.Errorf("pipeline: store %s: %w", what, err)
	}
	return nil
}

// warn stores a warning for the task's owner inside tx, in English and by its
// messages (store.Warning); a zero scope is about the whole task.
func (r *run) warn(ctx context.Context, tx pgx.Tx, stage taskstate.Stage, scope, message locale.Text) error {
	return r.q.InsertTaskWarning(ctx, tx, store.Warning(r.p.en, r.id, r.owner, stage, scope, message))
}

// clusterScope is the scope of a warning about cluster idx.
func clusterScope(idx int) locale.Text {
	return locale.Msg("task_warning.scope_cluster", "N", strconv.Itoa(idx))
}

// conversationScope is the scope of a warning about the conversation named name.
func conversationScope(name string) locale.Text {
	return locale.Msg("task_warning.scope_conversation", "Name", name)
}

// setStage records the stage and its progress inside tx, with the checkpoint that
// reached it.
func (r *run) setStage(ctx context.Context, tx pgx.Tx, stage taskstate.Stage, done, total int) error {
	_, err := r.q.SetTaskStage(ctx, tx, dbsqlc.SetTaskStageParams{
		Stage: stage, ProgressDone: int32(done), ProgressTotal: int32(total),
		ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
	})
	return err
}

// countUnit adds a finished unit to the task's progress and spend (and to the isolated
// count when isolated) inside tx, and reports whether the owner asked to cancel. The
// unit's spend goes to its stage's usage row separately (addUsage).
func (r *run) countUnit(ctx context.Context, tx pgx.Tx, usage analyzer.Usage, isolated bool) (bool, error) {
	p := dbsqlc.CountTaskUnitParams{
		Calls: int32(usage.Calls), PromptTokens: int64(usage.PromptTokens), CompletionTokens: int64(usage.CompletionTokens),
		ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
	}
	if isolated {
		p.Isolated = 1
	}
	row, err := r.q.CountTaskUnit(ctx, tx, p)
	return row.CancelRequested, err
}

// addUsage adds model spend to a stage's usage row inside tx; a unit that cost nothing
// (the offline analyzer) writes no row.
func (r *run) addUsage(ctx context.Context, tx pgx.Tx, stage taskstate.Stage, u analyzer.Usage) error {
	if u == (analyzer.Usage{}) {
		return nil
	}
	return r.q.AddTaskUsage(ctx, tx, dbsqlc.AddTaskUsageParams{
		Stage: stage, Calls: int32(u.Calls), PromptTokens: int64(u.PromptTokens),
		CompletionTokens: int64(u.CompletionTokens), TaskID: r.id, OwnerUserID: r.owner,
	})
}

// unitEnded is a unit's finally (docs/architecture.md#the-claim-protocol: every
// finished unit refreshes the heartbeat). A stored unit is a heartbeat: its
// checkpoint's transaction began with the fenced touch of the task row, which refreshed
// heartbeat_at, and the checkpoint reports a cancel request as the heartbeat does. So
// the lease is beaten here only when the unit stored nothing. The heartbeat's error —
// one that cannot be persisted, a lost lease, a cancel — replaces a nil *err, so it is
// never swallowed; call it deferred.
func (r *run) unitEnded(ctx context.Context, stored bool, err *error) {
	if stored {
		return
	}
	if hb := r.lease.Heartbeat(ctx); hb != nil && *err == nil {
		*err = hb
	}
}
