package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// errorRunes caps an analyzer error stored on a conversation or in a warning.
const errorRunes = 500

// diagnose diagnoses every selected conversation not finished yet (DESIGN.md §5 steps
// 3–4), DiagnosisConcurrency at a time. Each conversation is a unit: its diagnosis,
// findings, spend and reliability count are written in one fenced transaction — its
// checkpoint — and the heartbeat is refreshed after it, done or isolated. A resumed
// task skips the conversations an earlier attempt diagnosed or isolated. It returns
// the counts once every selected conversation is finished.
func (r *run) diagnose(ctx context.Context) (dbsqlc.CountConversationDiagnosesRow, error) {
	counts, err := r.diagnosisCounts(ctx)
	if err != nil {
		return counts, err
	}
	if err := r.lease.Progress(ctx, StageDiagnosis, int(counts.Done+counts.Isolated), int(counts.Selected)); err != nil {
		return counts, err
	}
	err = parallel(r.p.opt.DiagnosisConcurrency, r.conversationsToDiagnose(ctx), r.stopping(ctx),
		func(c storedConversation) error { return r.diagnoseOne(ctx, c) })
	if err != nil {
		return counts, err
	}
	if err := r.between(ctx); err != nil {
		return counts, err
	}
	return r.diagnosisCounts(ctx)
}

func (r *run) diagnosisCounts(ctx context.Context) (dbsqlc.CountConversationDiagnosesRow, error) {
	counts, err := r.q.CountConversationDiagnoses(ctx, r.p.pool, dbsqlc.CountConversationDiagnosesParams{TaskID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return counts, fmt.Errorf("pipeline: count diagnoses: %w", err)
	}
	return counts, nil
}

// stopping is asked before each unit starts: no new unit once the worker drains or
// the task's context has ended.
func (r *run) stopping(ctx context.Context) func() bool {
	return func() bool { return ctx.Err() != nil || r.lease.Draining() }
}

// diagnoseOne is one conversation's unit. An analyzer error while the task's context
// is alive isolates the conversation and the task goes on; once the context has ended
// the task is stopping and nothing is written.
func (r *run) diagnoseOne(ctx context.Context, c storedConversation) (err error) {
	r.lease.Unit("conversation " + c.name())
	defer r.heartbeat(ctx, &err)
	res, aerr := r.p.analyzer.Diagnose(ctx, c.conv)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var d analyzer.Diagnosis
	if aerr == nil {
		d, aerr = NormalizeDiagnosis(res.Value, c.conv)
	}
	if aerr != nil {
		return r.isolate(ctx, c, res.Usage, aerr)
	}
	return r.storeDiagnosis(ctx, c, d, res.Pass, res.Usage)
}

// storeDiagnosis writes a conversation's diagnosis, its findings and what it cost as
// one checkpoint: one statement after the lease's fence (two when the model was paid).
func (r *run) storeDiagnosis(ctx context.Context, c storedConversation, d analyzer.Diagnosis, pass analyzer.Pass, usage analyzer.Usage) error {
	diagnosis, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("pipeline: diagnosis of conversation %s: %w", c.name(), err)
	}
	params := dbsqlc.StoreConversationDiagnosisParams{
		Diagnosis: diagnosis, TaskID: r.id, OwnerUserID: r.owner, Seq: c.seq, Attempt: r.lease.Task.Attempt,
		Calls: int32(usage.Calls), PromptTokens: int64(usage.PromptTokens), CompletionTokens: int64(usage.CompletionTokens),
	}
	if pass == analyzer.PassRepaired {
		params.Repaired = 1
	} else {
		pass, params.FirstPassValid = analyzer.PassFirst, 1
	}
	params.DiagnosisPass = ptr(string(pass))
	return r.inTx(ctx, "diagnosis of conversation "+c.name(), func(tx pgx.Tx) error {
		row, err := r.q.StoreConversationDiagnosis(ctx, tx, params)
		if err != nil {
			return err
		}
		if row.Stored != 1 || row.Counted != 1 {
			return fmt.Errorf("conversation %s was not pending diagnosis any more", c.name())
		}
		return r.addUsage(ctx, tx, StageDiagnosis, usage)
	})
}

// isolate records a conversation whose diagnosis failed: marked isolated with the
// error, named in a warning, its spend still counted — one checkpoint.
func (r *run) isolate(ctx context.Context, c storedConversation, usage analyzer.Usage, cause error) error {
	msg := ClipQuote(cause.Error(), errorRunes)
	r.lease.Logger().Warn("conversation isolated", "stage", StageDiagnosis, "unit", c.name(), "err", cause)
	return r.inTx(ctx, "isolation of conversation "+c.name(), func(tx pgx.Tx) error {
		if _, err := r.q.SaveConversationDiagnosis(ctx, tx, dbsqlc.SaveConversationDiagnosisParams{
			DiagnosisStatus: "isolated", DiagnosisError: msg, TaskID: r.id, OwnerUserID: r.owner, Seq: c.seq,
		}); err != nil {
			return err
		}
		if err := r.warn(ctx, tx, StageDiagnosis, "conversation "+c.name(),
			fmt.Sprintf("Conversation %s could not be diagnosed and is left out of the results: %s", c.name(), msg)); err != nil {
			return err
		}
		return r.countUnit(ctx, tx, StageDiagnosis, usage, true)
	})
}
