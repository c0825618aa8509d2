package report

import (
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// Why an issue has no Action (Cluster.NoAction): empty for one that has an Action, for
// expected behaviour, and for a diagnosis that has not completed.
const (
	// NoActionRankedBelow: only cluster.MaxActionCandidates ACTION issues get an Action,
	// and it did not rank among them.
	NoActionRankedBelow = "ranked_below"
	// NoActionIssueSince: it ranks among them now, but did not when the Actions were
	// written — it was expected then and its owner took the mark back or, where the
	// policy seemed to call for it, marked it not expected, or another issue has since
	// been marked expected; a new run writes one.
	NoActionIssueSince = "issue_since"
	// NoActionFailed: its Action could not be written (FailedActions says why).
	NoActionFailed = "failed"
	// NoActionSeenOnce: it was seen in one conversation only, too little to act on.
	NoActionSeenOnce = "seen_once"
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
		if c.Type == analyzer.TypeAction {
			r.ActionIssuesNextRun++
		}
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
		case c.SeenOnce():
			c.NoAction = NoActionSeenOnce
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
func NoActionWords(l *locale.Localizer, c Cluster) (short, long string) {
	switch c.NoAction {
	case NoActionRankedBelow:
		// Not "top 10": RISK Actions rank among them, so an Action can be #11.
		return l.T("no_action.ranked_below", "N", cluster.MaxActionCandidates), l.T("no_action.ranked_below_why", "N", cluster.MaxActionCandidates)
	case NoActionSeenOnce:
		return l.T("no_action.seen_once"), l.T("no_action.seen_once_why")
	case NoActionIssueSince:
		return l.T("no_action.issue_since"), l.T("no_action.issue_since_why")
	case NoActionFailed:
		return l.T("no_action.failed"), l.T("no_action.failed_why")
	}
	return "", ""
}
