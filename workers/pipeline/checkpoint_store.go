package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// storeCheckpoints writes a group of finished conversations in one fenced transaction:
// the diagnosed ones in one statement (diagnoses, findings and task counters), each
// isolated one marked, named in a warning and counted in the task's progress. The
// transaction's fenced touch refreshes the heartbeat, so a stored checkpoint is the
// heartbeat of its units; when it finds that the owner asked to cancel, a heartbeat
// follows, which ends the task's context as it does whenever it sees a cancel.
func (r *run) storeCheckpoints(ctx context.Context, group []diagnosisCheckpoint) error {
	done := dbsqlc.StoreConversationDiagnosesParams{TaskID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt}
	var usage analyzer.Usage
	for _, c := range group {
		usage = usage.Add(c.usage)
		if c.diagnosis == nil {
			continue
		}
		done.Seqs = append(done.Seqs, c.seq)
		done.Diagnoses = append(done.Diagnoses, string(c.diagnosis))
		done.Passes = append(done.Passes, string(c.pass))
		done.Calls = append(done.Calls, int32(c.usage.Calls))
		done.PromptTokens = append(done.PromptTokens, int64(c.usage.PromptTokens))
		done.CompletionTokens = append(done.CompletionTokens, int64(c.usage.CompletionTokens))
	}
	what := "diagnosis of conversation " + group[0].name
	if len(group) > 1 {
		what = fmt.Sprintf("diagnoses of %d conversations from %s", len(group), group[0].name)
	}
	cancel := false
	err := r.inTx(ctx, what, func(tx pgx.Tx) error {
		if len(done.Seqs) > 0 {
			row, err := r.q.StoreConversationDiagnoses(ctx, tx, done)
			if err != nil {
				return err
			}
			if int(row.Stored) != len(done.Seqs) || row.Counted != 1 {
				return fmt.Errorf("%d of %d conversations were not pending diagnosis any more", len(done.Seqs)-int(row.Stored), len(done.Seqs))
			}
			cancel = row.CancelRequested
		}
		for _, c := range group {
			if c.diagnosis == nil || !c.adjusted.Any() {
				continue
			}
			if err := r.warn(ctx, tx, taskstate.Diagnosis, conversationScope(c.name),
				locale.Msg("task_warning.conversation_adjusted", "Name", c.name, "Changes", c.adjusted.Text())); err != nil {
				return err
			}
		}
		for _, c := range group {
			if c.diagnosis != nil {
				continue
			}
			requested, err := r.storeIsolation(ctx, tx, c)
			if err != nil {
				return err
			}
			cancel = cancel || requested
		}
		return r.addUsage(ctx, tx, taskstate.Diagnosis, usage)
	})
	if err != nil {
		return err
	}
	if cancel {
		return r.lease.Heartbeat(ctx)
	}
	return nil
}

// storeIsolation records a conversation whose diagnosis failed inside tx: marked
// isolated with the error, named in a warning, counted as isolated. It reports whether
// the owner asked to cancel.
func (r *run) storeIsolation(ctx context.Context, tx pgx.Tx, c diagnosisCheckpoint) (bool, error) {
	if _, err := r.q.SaveConversationDiagnosis(ctx, tx, dbsqlc.SaveConversationDiagnosisParams{
		DiagnosisStatus: taskstate.DiagnosisIsolated, DiagnosisError: c.isolated, TaskID: r.id, OwnerUserID: r.owner, Seq: c.seq,
	}); err != nil {
		return false, err
	}
	if err := r.warn(ctx, tx, taskstate.Diagnosis, conversationScope(c.name),
		locale.Msg("task_warning.conversation_isolated", "Name", c.name, "Error", c.isolated)); err != nil {
		return false, err
	}
	return r.countUnit(ctx, tx, c.usage, true)
}

// diagnosisJSON encodes a normalised diagnosis for its checkpoint.
func diagnosisJSON(c storedConversation, d analyzer.Diagnosis) ([]byte, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("pipeline: diagnosis of conversation %s: %w", c.name(), err)
	}
	return raw, nil
}
