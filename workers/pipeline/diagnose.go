package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/drivers"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// categories are the distinct categories of d's findings that are not expected
// behaviour, in order: what the search for failure drivers counts.
func categories(d analyzer.Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		if !f.Expected {
			out = append(out, f.Category)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// errorRunes caps an analyzer error stored on a conversation or in a warning.
const errorRunes = 500

// diagnose diagnoses every selected conversation not finished yet (steps 3 and 4 of
// docs/architecture.md#pipeline-stages), DiagnosisConcurrency at a time. Each
// conversation is a unit with its own checkpoint — its diagnosis, findings, spend and
// reliability count, or its isolation — written in a fenced transaction by the
// checkpointer as the unit finishes; that transaction is the unit's heartbeat. A
// resumed task skips the conversations an earlier attempt diagnosed or isolated, and
// skips the stage altogether when an earlier attempt had gone on to a later one. It
// returns the counts once every selected conversation is finished and stored.
func (r *run) diagnose(ctx context.Context) (dbsqlc.CountConversationDiagnosesRow, error) {
	counts, err := r.diagnosisCounts(ctx)
	if err != nil || r.state.Stage.After(taskstate.Diagnosis) {
		// Past diagnosis, an earlier attempt finished every selected conversation, and
		// writing the stage's progress would move the task back to it.
		return counts, err
	}
	if err := r.lease.Progress(ctx, taskstate.Diagnosis, int(counts.Done+counts.Isolated), int(counts.Selected)); err != nil {
		return counts, err
	}
	if counts.Done == 0 {
		r.search = drivers.New()
		r.features = r.newFeatureLog()
	}
	ck := r.startCheckpoints(ctx)
	stop := r.stopping(ctx)
	err = parallel(r.p.opt.DiagnosisConcurrency, r.conversationsToDiagnose(ctx),
		func() bool { return stop() || ck.failed() != nil },
		func(c storedConversation, release func()) error { return r.diagnoseOne(ctx, ck, c, release) })
	if cerr := ck.close(); err == nil {
		err = cerr
	}
	r.kept = nil // no later stage reads these transcripts (a word driver reads its one example again)
	if err != nil {
		return counts, err
	}
	// The refresh is for the task's pages: clustering and the Actions read the rows
	// they need by task and seq, planned alike on any statistics, so it runs beside
	// them.
	if r.refreshesStatistics() {
		r.maintainBehind(ctx, taskstate.Diagnosis, statisticsNotRefreshed, r.analyzeResults)
	}
	if err := r.between(ctx); err != nil {
		return counts, err
	}
	r.searched = r.search != nil
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

// screenedDiagnoser is an analyzer that reads the risk flags the quality pass found in
// a conversation instead of screening it again (offline.Analyzer).
type screenedDiagnoser interface {
	DiagnoseScreened(ctx context.Context, conv transcript.Conversation, flags []risk.Flag) (analyzer.Result[analyzer.Diagnosis], error)
}

// diagnoseOne is one conversation's unit. An analyzer error while the task's context
// is alive isolates the conversation and the task goes on, but for a provider outage,
// which the unit waits out (throughOutage); once the context has ended the task is
// stopping and nothing is written. Its checkpoint goes to ck; release frees its place
// for the next unit's model call once its own has returned.
func (r *run) diagnoseOne(ctx context.Context, ck *checkpointer, c storedConversation, release func()) (err error) {
	r.lease.Unit("conversation " + c.name())
	handed := false
	defer func() { r.unitEnded(ctx, handed, &err) }()
	res, aerr, stop := throughOutage(ctx, r.outage, string(taskstate.Diagnosis), func() (analyzer.Result[analyzer.Diagnosis], error) {
		ctx := analyzer.WithLanguage(ctx, r.state.Language)
		if a, ok := r.p.analyzer.(screenedDiagnoser); ok {
			return a.DiagnoseScreened(ctx, c.conv, c.flags)
		}
		return r.p.analyzer.Diagnose(ctx, c.conv)
	})
	release()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if stop != nil {
		return stop
	}
	cp := diagnosisCheckpoint{seq: c.seq, name: c.name(), usage: res.Usage, pass: res.Pass, adjusted: res.Adjusted}
	var d analyzer.Diagnosis
	if aerr == nil {
		d, aerr = NormalizeDiagnosis(res.Value, c.conv)
	}
	if aerr == nil {
		if cp.diagnosis, err = diagnosisJSON(c, d); err != nil {
			return err
		}
		if cp.pass != analyzer.PassRepaired {
			cp.pass = analyzer.PassFirst
		}
		if r.search != nil && c.label != transcript.LabelNone {
			f := drivers.Extract(int(c.seq), c.label == transcript.LabelFailed, c.conv, toolErrorTurns(c.flags), categories(d))
			cp.features = &f
		}
	} else {
		cp.isolated = textmatch.ClipQuote(aerr.Error(), errorRunes)
		r.lease.Logger().Warn("conversation isolated", "stage", taskstate.Diagnosis, "unit", c.name(), "err", aerr)
	}
	handed = true
	return ck.put(cp)
}
