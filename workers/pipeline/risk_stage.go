package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/checkup-dev/checkup/workers/risk"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// riskExamples is how many examples of each kind the risk summary keeps.
const riskExamples = 3

// risk summarises the risk flags the quality pass stored and chooses the conversations
// to diagnose (step 2 of docs/architecture.md#pipeline-stages): every flagged one, plus
// — when MaxDiagnosed caps the budget — a sample of the rest seeded by the task id.
// When the agent has a detector, only the safety flags (risk.Safety) are always
// diagnosed: the budget's rest goes to the likeliest failures, whose scores already
// weigh tool errors, refusals and requests for a person (SelectForDiagnosis). The
// choice and the summary are stored in one transaction; those not chosen are skipped.
// A task whose risk summary is stored already reuses its choice.
func (r *run) risk(ctx context.Context) error {
	if len(r.state.RiskSummary) > 0 && string(r.state.RiskSummary) != "null" {
		return nil
	}
	kept := r.funnel.Kept()
	if err := r.lease.Progress(ctx, taskstate.Risk, 0, kept); err != nil {
		return err
	}
	sum := newRiskSummarizer()
	var seqs []int32
	var flagged, safety []bool
	for after := int32(0); after < r.lease.Task.ConversationCount; after += pageSize {
		rows, err := r.q.ListKeptRiskFlags(ctx, r.p.pool, dbsqlc.ListKeptRiskFlagsParams{
			TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, ThroughSeq: after + pageSize,
		})
		if err != nil {
			return fmt.Errorf("pipeline: read risk flags: %w", err)
		}
		for _, row := range rows {
			var flags []risk.Flag
			if err := json.Unmarshal(row.RiskFlags, &flags); err != nil {
				return fmt.Errorf("pipeline: risk flags of conversation %d: %w", row.Seq, err)
			}
			sum.add(row.ExternalID, row.Seq, flags)
			seqs, flagged = append(seqs, row.Seq), append(flagged, len(flags) > 0)
			safety = append(safety, slices.ContainsFunc(flags, func(f risk.Flag) bool { return risk.Safety(f.Kind) }))
		}
	}
	scores, err := r.scoresBeforeDiagnosis(ctx, seqs)
	if err != nil {
		return err
	}
	forced := flagged
	if scores != nil {
		forced = safety // the detector weighs the other signals with the rest
	}
	selected := SelectForDiagnosis(r.id.String(), forced, scores, r.p.opt.MaxDiagnosed)
	chosen := 0
	for _, ok := range selected {
		if ok {
			chosen++
		}
	}
	raw, err := json.Marshal(sum.summary(chosen))
	if err != nil {
		return fmt.Errorf("pipeline: risk summary: %w", err)
	}
	return r.inTx(ctx, "diagnosis sample", func(tx pgx.Tx) error {
		if !r.selectedKept {
			byPosition := make([]bool, r.lease.Task.ConversationCount+1) // by seq; SQL arrays start at 1
			for i, ok := range selected {
				byPosition[seqs[i]] = ok
			}
			if _, err := r.q.SelectConversations(ctx, tx, dbsqlc.SelectConversationsParams{
				TaskID: r.id, OwnerUserID: r.owner, Chosen: byPosition[1:],
			}); err != nil {
				return err
			}
		}
		if msg := smallSampleWarning(chosen); !msg.IsZero() {
			if err := r.warn(ctx, tx, taskstate.Risk, locale.Text{}, msg); err != nil {
				return err
			}
		}
		if _, err := r.q.SetTaskRiskSummary(ctx, tx, dbsqlc.SetTaskRiskSummaryParams{
			RiskSummary: raw, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		}); err != nil {
			return err
		}
		return r.setStage(ctx, tx, taskstate.Risk, len(seqs), len(seqs))
	})
}

// riskSummarizer builds the RiskSummary from the conversations' flags in upload order.
type riskSummarizer struct {
	screened, flagged int
	kinds             map[string]*RiskKindSummary
}

func newRiskSummarizer() *riskSummarizer {
	return &riskSummarizer{kinds: map[string]*RiskKindSummary{}}
}

func (s *riskSummarizer) add(id string, seq int32, flags []risk.Flag) {
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
			k.Examples = append(k.Examples, RiskExample{ConversationID: id, Seq: int(seq), Turn: f.Turn, Quote: f.Quote,
				CutBefore: f.CutBefore, CutAfter: f.CutAfter})
		}
	}
}

// summary returns the summary in risk.Kinds order, kinds with no flag left out.
func (s *riskSummarizer) summary(selected int) RiskSummary {
	out := RiskSummary{Screened: s.screened, Flagged: s.flagged, Selected: selected, Kinds: []RiskKindSummary{}}
	for _, kind := range risk.Kinds() {
		if k := s.kinds[kind]; k != nil {
			out.Kinds = append(out.Kinds, *k)
		}
	}
	return out
}

// roughSample is the fewest analyzed conversations whose shares the report gives
// without a warning: below it one conversation moves a share by more than three
// points, and an issue of two or three conversations can rank first by chance.
const roughSample = 30

// smallSampleWarning says how rough the figures of a diagnosis of analyzed
// conversations are, or is zero when they are not.
func smallSampleWarning(analyzed int) locale.Text {
	if analyzed >= roughSample || analyzed <= 0 {
		return locale.Text{}
	}
	return locale.Msg("task_warning.small_sample", "Count", analyzed,
		"Points", int(math.Round(100/float64(analyzed))), "Steady", roughSample)
}

// scoresBeforeDiagnosis are the failure scores of the kept conversations (seqs, in
// order) by the agent's detector, when the diagnosis budget is capped and the agent has
// one: what chooses the conversations the model reads. Before the diagnosis the
// detector reads what it can (no findings yet). nil otherwise.
func (r *run) scoresBeforeDiagnosis(ctx context.Context, seqs []int32) ([]float64, error) {
	if r.p.opt.MaxDiagnosed <= 0 || len(seqs) <= r.p.opt.MaxDiagnosed || r.lease.Task.AgentID == 0 {
		return nil, nil
	}
	m, _, err := currentModel(ctx, r.q, r.p.pool, r.lease.Task.AgentID, r.owner)
	if err != nil || m == nil {
		return nil, err
	}
	found, err := scoreConversations(ctx, r.q, r.p.pool, r.id, r.owner, m, nil, false)
	if err != nil {
		return nil, err
	}
	bySeq := make(map[int32]float64, len(found))
	for _, s := range found {
		bySeq[s.Seq] = s.Score
	}
	scores := make([]float64, len(seqs))
	for i, seq := range seqs {
		scores[i] = bySeq[seq]
	}
	return scores, nil
}
