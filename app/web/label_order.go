package web

import (
	"context"
	"hash/fnv"
	"slices"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/workers/detector"
)

// sortToLabel is the conversation list's sort "most useful to label": the task's
// unlabelled, diagnosed conversations in the order detector.SuggestOrder gives.
const sortToLabel = "to_label"

// labelOrder is the order in which a task's kept, diagnosed conversations are most
// useful to label, labelled ones included so that the order stays the same as labels
// arrive (only a new scoring, or the labels ceasing to be short of an outcome, moves
// it); the list shows the unlabelled ones.
type labelOrder struct {
	seqs     []int32
	labelled map[int32]bool
	// Scored: the agent's detector scored the run, so the order puts the conversations
	// it is least sure of first; otherwise it spreads over the upload.
	scored bool
}

// labelOrderOf orders task's conversations for labelling, from its candidates.
func (s *Server) labelOrderOf(ctx context.Context, task dbsqlc.AnalysisTask, owner store.Owner) (labelOrder, error) {
	rows, err := s.store.LabelCandidates(ctx, task.ID, owner)
	if err != nil {
		return labelOrder{}, err
	}
	short := detector.ShortOfNone
	if task.AgentID != nil {
		counts, err := s.store.AgentLabelCounts(ctx, *task.AgentID, owner)
		if err != nil {
			return labelOrder{}, err
		}
		short = detector.ShortOf(counts.Failed, counts.Succeeded)
	}
	return orderForLabelling(task.ID, rows, len(task.FailureModel) > 0 && string(task.FailureModel) != "null", short), nil
}

// orderForLabelling is detector.SuggestOrder over rows: strata of the upload by the
// category of each conversation's most severe issue, its length (a third of the
// upload) and whether risk screening flagged it; and its failure score. The seed is the
// task's id, so a task's order is the same on every page and for every reader.
func orderForLabelling(task uuid.UUID, rows []dbsqlc.ListLabelCandidatesRow, scored bool, short detector.Short) labelOrder {
	lengths := make([]int, len(rows))
	for i, r := range rows {
		lengths[i] = int(r.MessageCount)
	}
	tertiles := detector.Tertiles(lengths)
	cands := make([]detector.Candidate, len(rows))
	o := labelOrder{labelled: map[int32]bool{}, scored: scored}
	for i, r := range rows {
		cands[i] = detector.Candidate{Seq: int(r.Seq), Stratum: detector.Stratum(r.TopCategory, int(r.MessageCount), tertiles, r.Flagged)}
		if r.FailureScore != nil {
			cands[i].Score = float64(*r.FailureScore)
		}
		if r.Label != nil {
			o.labelled[r.Seq] = true
		}
	}
	h := fnv.New64a()
	h.Write(task[:])
	for _, seq := range detector.SuggestOrder(cands, scored, short, h.Sum64()) {
		o.seqs = append(o.seqs, int32(seq))
	}
	return o
}

// unlabelledAfter is the unlabelled conversations that come after seq in the order,
// all of them from the start when seq is 0 or not in it.
func (o labelOrder) unlabelledAfter(seq int32) []int32 {
	rest := o.seqs
	if i := slices.Index(o.seqs, seq); i >= 0 {
		rest = o.seqs[i+1:]
	}
	var out []int32
	for _, s := range rest {
		if !o.labelled[s] {
			out = append(out, s)
		}
	}
	return out
}

// nextToLabel is the unlabelled conversations to go on to from seq: those after it in
// the order, then those before it. The order moves when the labels stop being short of
// an outcome, so seq may land near its end with unlabelled ones still before it.
func (o labelOrder) nextToLabel(seq int32) []int32 {
	i := slices.Index(o.seqs, seq)
	if i < 0 {
		return o.unlabelledAfter(0)
	}
	var out []int32
	for _, s := range append(slices.Clone(o.seqs[i+1:]), o.seqs[:i]...) {
		if !o.labelled[s] {
			out = append(out, s)
		}
	}
	return out
}

// before is the conversation just before seq in the order, labelled or not: a list
// that starts after it starts with seq. 0 when seq is first or not in it.
func (o labelOrder) before(seq int32) int32 {
	if i := slices.Index(o.seqs, seq); i > 0 {
		return o.seqs[i-1]
	}
	return 0
}

// unlabelled counts the conversations the list most useful to label holds.
func (o labelOrder) unlabelled() int { return len(o.seqs) - len(o.labelled) }
