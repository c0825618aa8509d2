package report

import (
	"fmt"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// Why an issue has no Action (Cluster.NoAction): empty for one that has an Action, for
// expected behaviour, and while the diagnosis runs.
const (
	// NoActionRankedBelow: only cluster.MaxActionCandidates ACTION issues get an Action,
	// and it did not rank among them.
	NoActionRankedBelow = "ranked_below"
	// NoActionIssueSince: it ranks among them now, but became an issue after the
	// Actions were written (its owner took a mark back); a new run writes one.
	NoActionIssueSince = "issue_since"
	// NoActionFailed: its Action could not be written (FailedActions says why).
	NoActionFailed = "failed"
)

// explainNoActions says of each issue without an Action why it has none, by the
// selection the pipeline writes Actions for, over the clusters as they are now.
func (r *Report) explainNoActions(rows []dbsqlc.ListTaskClustersRow) error {
	if !r.Task.Status.Concluded() {
		return nil
	}
	clusters, err := cluster.FromRows(rows)
	if err != nil {
		return err
	}
	candidate := map[int]bool{}
	for _, c := range cluster.SelectCandidates(clusters) {
		candidate[c.Idx] = true
	}
	failed := map[int]bool{}
	for _, f := range r.FailedActions {
		failed[f.ClusterIdx] = true
	}
	for i := range r.Clusters {
		c := &r.Clusters[i]
		switch {
		case c.Expected || c.ActionRank > 0:
		case failed[c.Idx]:
			c.NoAction = NoActionFailed
		case candidate[c.Idx]:
			c.NoAction = NoActionIssueSince
		default:
			c.NoAction = NoActionRankedBelow
		}
	}
	return nil
}

// NoActionWords says in a few words, and in a sentence, why issue c has no Action
// (Cluster.NoAction); both empty when it has one or is expected behaviour.
func NoActionWords(c Cluster) (short, long string) {
	switch c.NoAction {
	case NoActionRankedBelow:
		short = fmt.Sprintf("not in the top %d", cluster.MaxActionCandidates)
		if c.ExcessFailures != nil && *c.ExcessFailures <= 0 {
			return short, fmt.Sprintf("Only the %d ACTION issues that account for the most failed conversations get an Action; this one's conversations fail no more often than the rest.", cluster.MaxActionCandidates)
		}
		return short, fmt.Sprintf("Only the %d most urgent ACTION issues get an Action, in the order the Actions are ranked by; this one came after them.", cluster.MaxActionCandidates)
	case NoActionIssueSince:
		return "run again", "It became an issue after the Actions were written: run the diagnosis again, and it gets one."
	case NoActionFailed:
		return "failed", "Its Action could not be written; the Actions that failed are listed with the Actions."
	}
	return "", ""
}
