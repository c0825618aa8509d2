package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/quality"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers"
)

// quality runs the quality checks over every conversation in upload order (DESIGN.md
// §5 step 1) and screens each kept one for risks (step 2) in the same pass, storing its
// search document too, so every transcript is read and decoded once for all three. The verdicts and flags of each
// pageSize conversations are stored in one fenced transaction, the last ones with the
// funnel on the task. The kept conversations stay decoded for diagnosis while they fit
// in keptBudget. A task whose funnel is stored already (an earlier attempt got past
// this pass) reuses it; both checks are deterministic, so an attempt that stopped
// halfway simply redoes them.
func (r *run) quality(ctx context.Context) (quality.Funnel, error) {
	f, err := r.checkQuality(ctx)
	r.funnel = f
	return f, err
}

func (r *run) checkQuality(ctx context.Context) (quality.Funnel, error) {
	if len(r.state.Funnel) > 0 && string(r.state.Funnel) != "null" {
		var f quality.Funnel
		if err := json.Unmarshal(r.state.Funnel, &f); err != nil {
			return quality.Funnel{}, fmt.Errorf("pipeline: stored funnel: %w", err)
		}
		return f, nil
	}
	total := int(r.lease.Task.ConversationCount)
	if err := r.lease.Progress(ctx, taskstate.Quality, 0, total); err != nil {
		return quality.Funnel{}, err
	}
	checker := quality.NewChecker(r.p.opt.QC)
	r.kept = &keptConversations{bySeq: map[int32]storedConversation{}}
	w := r.newQualityWrites()
	done := 0
	for page, err := range r.screenedPages(ctx) {
		if err != nil {
			return quality.Funnel{}, err
		}
		for _, c := range page {
			v := checker.Check(c.conv)
			w.verdicts.Seqs = append(w.verdicts.Seqs, c.seq)
			w.verdicts.QcStatuses = append(w.verdicts.QcStatuses, string(v.Status))
			w.verdicts.QcReasons = append(w.verdicts.QcReasons, v.Reason)
			w.verdicts.ContentHashes = append(w.verdicts.ContentHashes, v.ContentHash)
			if v.Status != quality.Kept {
				continue
			}
			r.kept.add(c.storedConversation)
			raw, err := json.Marshal(c.flags)
			if err != nil {
				return quality.Funnel{}, fmt.Errorf("pipeline: risk flags: %w", err)
			}
			w.flags.Seqs = append(w.flags.Seqs, c.seq)
			w.flags.Flags = append(w.flags.Flags, string(raw))
			w.search.Seqs = append(w.search.Seqs, c.seq)
			w.search.Terms = append(w.search.Terms, strings.Join(c.terms, " "))
		}
		done += len(page)
		if len(w.verdicts.Seqs) >= pageSize {
			if err := r.storeQuality(ctx, w, done, max(total, done), nil); err != nil {
				return quality.Funnel{}, err
			}
			w = r.newQualityWrites()
		}
	}
	funnel := checker.Funnel()
	raw, err := json.Marshal(funnel)
	if err != nil {
		return quality.Funnel{}, fmt.Errorf("pipeline: funnel: %w", err)
	}
	return funnel, r.storeQuality(ctx, w, done, max(total, done), raw)
}

// qualityWrites are the verdicts, risk flags and search documents of the conversations
// checked since the last store.
type qualityWrites struct {
	verdicts dbsqlc.SetConversationQualityParams
	flags    dbsqlc.SetConversationRiskFlagsParams
	search   dbsqlc.InsertConversationSearchParams
}

func (r *run) newQualityWrites() qualityWrites {
	return qualityWrites{
		verdicts: dbsqlc.SetConversationQualityParams{TaskID: r.id, OwnerUserID: r.owner},
		flags:    dbsqlc.SetConversationRiskFlagsParams{TaskID: r.id, OwnerUserID: r.owner},
		search:   dbsqlc.InsertConversationSearchParams{TaskID: r.id, OwnerUserID: r.owner},
	}
}

// storeQuality stores w and the progress in one fenced transaction, with the funnel
// when the pass is over (funnel is not nil).
func (r *run) storeQuality(ctx context.Context, w qualityWrites, done, total int, funnel []byte) error {
	return r.inTx(ctx, "quality verdicts and risk flags", func(tx pgx.Tx) error {
		if len(w.verdicts.Seqs) > 0 {
			if _, err := r.q.SetConversationQuality(ctx, tx, w.verdicts); err != nil {
				return err
			}
		}
		if len(w.flags.Seqs) > 0 {
			if _, err := r.q.SetConversationRiskFlags(ctx, tx, w.flags); err != nil {
				return err
			}
			if err := r.q.InsertConversationSearch(ctx, tx, w.search); err != nil {
				return err
			}
		}
		if err := r.setStage(ctx, tx, taskstate.Quality, done, total); err != nil {
			return err
		}
		if funnel == nil {
			return nil
		}
		_, err := r.q.SetTaskFunnel(ctx, tx, dbsqlc.SetTaskFunnelParams{
			Funnel: funnel, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		})
		return err
	})
}

// insufficient is the end of a task with too few usable conversations.
func insufficient(f quality.Funnel, min int) workers.Outcome {
	return workers.Outcome{
		Status: taskstate.InsufficientData,
		Error: fmt.Sprintf("Only %d of the %d uploaded conversations passed the quality checks; at least %d are needed (MIN_CONVERSATIONS). See the funnel for the reasons.",
			f.Kept(), f.Uploaded(), min),
	}
}
