package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers"
)

// quality runs the quality checks over every conversation in upload order (DESIGN.md
// §5 step 1) and screens each kept one for risks (step 2) in the same pass, so every
// transcript is read and decoded once for both. Each page's verdicts and flags are
// stored in one fenced transaction, and the funnel on the task at the end. The kept
// conversations stay decoded for diagnosis while they fit in keptBudget. A task whose
// funnel is stored already (an earlier attempt got past this pass) reuses it; both
// checks are deterministic, so an attempt that stopped halfway simply redoes them.
func (r *run) quality(ctx context.Context) (Funnel, error) {
	f, err := r.checkQuality(ctx)
	r.funnel = f
	return f, err
}

func (r *run) checkQuality(ctx context.Context) (Funnel, error) {
	if len(r.state.Funnel) > 0 && string(r.state.Funnel) != "null" {
		var f Funnel
		if err := json.Unmarshal(r.state.Funnel, &f); err != nil {
			return Funnel{}, fmt.Errorf("pipeline: stored funnel: %w", err)
		}
		return f, nil
	}
	total := int(r.lease.Task.ConversationCount)
	if err := r.lease.Progress(ctx, StageQuality, 0, total); err != nil {
		return Funnel{}, err
	}
	checker := NewQualityChecker(r.p.opt.QC)
	r.kept = &keptConversations{bySeq: map[int32]storedConversation{}}
	done := 0
	for page, err := range r.conversationPages(ctx) {
		if err != nil {
			return Funnel{}, err
		}
		verdicts := dbsqlc.SetConversationQualityParams{TaskID: r.id, OwnerUserID: r.owner}
		flags := dbsqlc.SetConversationRiskFlagsParams{TaskID: r.id, OwnerUserID: r.owner}
		for _, c := range page {
			v := checker.Check(c.conv)
			verdicts.Seqs = append(verdicts.Seqs, c.seq)
			verdicts.QcStatuses = append(verdicts.QcStatuses, string(v.Status))
			verdicts.QcReasons = append(verdicts.QcReasons, v.Reason)
			verdicts.ContentHashes = append(verdicts.ContentHashes, v.ContentHash)
			if v.Status != QCKept {
				continue
			}
			r.kept.add(c)
			raw, err := json.Marshal(r.p.screener.Screen(c.conv))
			if err != nil {
				return Funnel{}, fmt.Errorf("pipeline: risk flags: %w", err)
			}
			flags.Seqs = append(flags.Seqs, c.seq)
			flags.Flags = append(flags.Flags, string(raw))
		}
		done += len(page)
		if err := r.inTx(ctx, "quality verdicts and risk flags", func(tx pgx.Tx) error {
			if _, err := r.q.SetConversationQuality(ctx, tx, verdicts); err != nil {
				return err
			}
			if _, err := r.q.SetConversationRiskFlags(ctx, tx, flags); err != nil {
				return err
			}
			return r.setStage(ctx, tx, StageQuality, done, max(total, done))
		}); err != nil {
			return Funnel{}, err
		}
	}
	funnel := checker.Funnel()
	raw, err := json.Marshal(funnel)
	if err != nil {
		return Funnel{}, fmt.Errorf("pipeline: funnel: %w", err)
	}
	err = r.inTx(ctx, "funnel", func(tx pgx.Tx) error {
		_, err := r.q.SetTaskFunnel(ctx, tx, dbsqlc.SetTaskFunnelParams{
			Funnel: raw, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		})
		return err
	})
	return funnel, err
}

// insufficient is the end of a task with too few usable conversations.
func insufficient(f Funnel, min int) workers.Outcome {
	return workers.Outcome{
		Status: workers.InsufficientData,
		Error: fmt.Sprintf("Only %d of the %d uploaded conversations passed the quality checks; at least %d are needed (MIN_CONVERSATIONS). See the funnel for the reasons.",
			f.Kept(), f.Uploaded(), min),
	}
}
