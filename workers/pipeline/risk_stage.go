package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// riskExamples is how many examples of each kind the risk summary keeps.
const riskExamples = 3

// risk screens every kept conversation (DESIGN.md §5 step 2), storing each page's
// flags in one fenced statement, then chooses the conversations to diagnose — every
// flagged one plus a sample of the rest seeded by the task id when MaxDiagnosed caps
// the budget — and stores that choice with the risk summary in one transaction. Those
// not chosen are skipped. A task whose risk summary is stored already reuses it.
func (r *run) risk(ctx context.Context) error {
	if len(r.state.RiskSummary) > 0 && string(r.state.RiskSummary) != "null" {
		return nil
	}
	kept := r.funnel.Kept()
	if err := r.lease.Progress(ctx, StageRisk, 0, kept); err != nil {
		return err
	}
	sum := newRiskSummarizer()
	var (
		seqs    []int32
		flagged []bool
	)
	for page, err := range r.conversationPages(ctx, true) {
		if err != nil {
			return err
		}
		params := dbsqlc.SetConversationRiskFlagsParams{TaskID: r.id, OwnerUserID: r.owner}
		for _, c := range page {
			flags := r.p.screener.Screen(c.conv)
			sum.add(c, flags)
			raw, err := json.Marshal(flags)
			if err != nil {
				return fmt.Errorf("pipeline: risk flags: %w", err)
			}
			if flags == nil {
				raw = []byte("[]")
			}
			params.Seqs = append(params.Seqs, c.seq)
			params.Flags = append(params.Flags, string(raw))
			seqs = append(seqs, c.seq)
			flagged = append(flagged, len(flags) > 0)
		}
		done := len(seqs)
		if err := r.inTx(ctx, "risk flags", func(tx pgx.Tx) error {
			if _, err := r.q.SetConversationRiskFlags(ctx, tx, params); err != nil {
				return err
			}
			return r.setStage(ctx, tx, StageRisk, done, max(kept, done))
		}); err != nil {
			return err
		}
	}

	selected := SelectForDiagnosis(r.id.String(), flagged, r.p.opt.MaxDiagnosed)
	var chosen []int32
	for i, ok := range selected {
		if ok {
			chosen = append(chosen, seqs[i])
		}
	}
	summary := sum.summary(len(chosen))
	raw, err := json.Marshal(summary)
	if err != nil {
		return fmt.Errorf("pipeline: risk summary: %w", err)
	}
	return r.inTx(ctx, "diagnosis sample", func(tx pgx.Tx) error {
		if _, err := r.q.SkipAllConversations(ctx, tx, dbsqlc.SkipAllConversationsParams{TaskID: r.id, OwnerUserID: r.owner}); err != nil {
			return err
		}
		if _, err := r.q.SelectConversations(ctx, tx, dbsqlc.SelectConversationsParams{
			TaskID: r.id, OwnerUserID: r.owner, Seqs: chosen,
		}); err != nil {
			return err
		}
		_, err := r.q.SetTaskRiskSummary(ctx, tx, dbsqlc.SetTaskRiskSummaryParams{
			RiskSummary: raw, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		})
		return err
	})
}

// riskSummarizer builds the RiskSummary while conversations are screened in order.
type riskSummarizer struct {
	screened, flagged int
	kinds             map[string]*RiskKindSummary
}

func newRiskSummarizer() *riskSummarizer {
	return &riskSummarizer{kinds: map[string]*RiskKindSummary{}}
}

func (s *riskSummarizer) add(c storedConversation, flags []RiskFlag) {
	s.screened++
	if len(flags) > 0 {
		s.flagged++
	}
	seen := map[string]bool{}
	for _, f := range flags {
		k := s.kinds[f.Kind]
		if k == nil {
			k = &RiskKindSummary{Kind: f.Kind, Examples: []RiskExample{}}
			s.kinds[f.Kind] = k
		}
		k.Flags++
		if seen[f.Kind] {
			continue
		}
		seen[f.Kind] = true
		k.Conversations++
		if len(k.Examples) < riskExamples {
			k.Examples = append(k.Examples, RiskExample{ConversationID: c.conv.ID, Seq: int(c.seq), Turn: f.Turn, Quote: f.Quote})
		}
	}
}

// summary returns the summary in RiskKinds order, kinds with no flag left out.
func (s *riskSummarizer) summary(selected int) RiskSummary {
	out := RiskSummary{Screened: s.screened, Flagged: s.flagged, Selected: selected, Kinds: []RiskKindSummary{}}
	for _, kind := range RiskKinds() {
		if k := s.kinds[kind]; k != nil {
			out.Kinds = append(out.Kinds, *k)
		}
	}
	return out
}
