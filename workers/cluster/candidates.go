package cluster

import (
	"cmp"
	"slices"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// MaxActionCandidates is how many ACTION clusters get an Action: the ones that rank
// highest (BySupport). RISK clusters are not limited.
const MaxActionCandidates = 10

// SelectCandidates chooses the clusters that get an Action (step 6 of
// docs/architecture.md#pipeline-stages) and ranks them: every RISK cluster and,
// separately, the MaxActionCandidates ACTION clusters that rank highest — each kind
// chosen in its own pool, so a RISK cluster never takes an ACTION cluster's place —
// all then in one order, BySupport (SupportFormula): by the failures each explains at
// least, estimated by the agent's detector or counted from labels, else by how common
// and severe it is at least. An issue seen in one conversation, and expected
// behaviour, is never a candidate. A candidate's position in the result is its
// candidate index, which its Action keeps whatever order the calls finish in. It is a
// pure function.
func SelectCandidates(clusters []Cluster) []Cluster {
	var risks, actions []Cluster
	for _, c := range clusters {
		if c.Expected || c.Support().SeenOnce {
			continue
		}
		switch c.Type {
		case analyzer.TypeRisk:
			risks = append(risks, c)
		case analyzer.TypeAction:
			actions = append(actions, c)
		}
	}
	slices.SortFunc(actions, BySupport)
	chosen := append(risks, actions[:min(len(actions), MaxActionCandidates)]...)
	slices.SortFunc(chosen, BySupport)
	return chosen
}

// ActionResult is how one candidate's Action call ended.
type ActionResult struct {
	CandidateIndex int
	ClusterIdx     int
	Written        bool   // false: the call failed
	Error          string // why it failed
	Rank           int    // 1..N for written Actions once ranked; 0 for failures
}

// AssignRanks orders results by candidate index and ranks the written ones 1..N with
// no gaps, failures left unranked (and listed in candidate order too). Results arrive
// in whatever order the calls finished; the ranks depend only on the candidate
// indexes, so network order never changes the report. results is not modified.
func AssignRanks(results []ActionResult) []ActionResult {
	out := slices.Clone(results)
	slices.SortFunc(out, func(a, b ActionResult) int { return cmp.Compare(a.CandidateIndex, b.CandidateIndex) })
	rank := 0
	for i := range out {
		out[i].Rank = 0
		if out[i].Written {
			rank++
			out[i].Rank = rank
		}
	}
	return out
}

// Rerank ranks a task's stored Actions again after its clusters changed (its owner
// marked one expected behaviour, or took the mark back) without writing any Action:
// SelectCandidates picks the candidates, in its order, from the clusters as they are
// now that have a written Action, and AssignRanks ranks them 1..N. A stored Action
// whose cluster is no longer a candidate (it is expected behaviour now) comes back
// unranked. A cluster with no written Action (it was expected, or not a candidate,
// when the Actions were written) takes no place among the candidates, so it never
// pushes a written Action out of the ten. stored are the task's Actions as stored:
// CandidateIndex and ClusterIdx as written, Written for an Action that was. The result
// has one element per stored Action, in stored order, with its new Rank; stored is
// not modified.
func Rerank(clusters []Cluster, stored []ActionResult) []ActionResult {
	written := map[int]bool{}
	for _, s := range stored {
		written[s.ClusterIdx] = written[s.ClusterIdx] || s.Written
	}
	var withAction []Cluster
	for _, c := range clusters {
		if written[c.Idx] {
			withAction = append(withAction, c)
		}
	}
	position := map[int]int{}
	for i, c := range SelectCandidates(withAction) {
		position[c.Idx] = i
	}
	var candidates []ActionResult
	for _, s := range stored {
		if p, ok := position[s.ClusterIdx]; ok && s.Written {
			candidates = append(candidates, ActionResult{CandidateIndex: p, ClusterIdx: s.ClusterIdx, Written: true})
		}
	}
	rank := map[int]int{}
	for _, a := range AssignRanks(candidates) {
		rank[a.ClusterIdx] = a.Rank
	}
	out := slices.Clone(stored)
	for i := range out {
		out[i].Rank = rank[out[i].ClusterIdx]
	}
	return out
}
