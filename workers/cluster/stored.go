package cluster

import (
	"encoding/json"
	"fmt"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// FromRows reads a task's stored clusters back, in idx order: what the pipeline selects
// Action candidates from, and what an owner's review re-ranks the Actions by. Their
// titles are not needed after clustering and are left out, and of their conversations
// only the count is read: which ones grows with the task, and neither needs it.
func FromRows(rows []dbsqlc.ListTaskClustersRow) ([]Cluster, error) {
	clusters := make([]Cluster, len(rows))
	for _, row := range rows {
		var parts PriorityParts
		if err := json.Unmarshal(row.PriorityParts, &parts); err != nil {
			return nil, fmt.Errorf("cluster: priority parts of cluster %d: %w", row.Idx, err)
		}
		if int(row.Idx) >= len(rows) || row.Idx < 0 {
			return nil, fmt.Errorf("cluster: stored cluster index %d out of range", row.Idx)
		}
		c := Cluster{
			Idx: int(row.Idx), Type: analyzer.FindingType(row.Type), Category: row.Category, Title: row.Title,
			ConversationCount: int(row.Conversations), FindingCount: int(row.FindingCount), Prevalence: float64(row.Prevalence),
			Severity: float64(row.Severity), Confidence: float64(row.Confidence),
			PriorityScore: float64(row.PriorityScore), Parts: parts, Expected: row.Expected,
			ExpectedReason: row.ExpectedReason, PolicyOverruled: row.PolicyOverruled, Outcomes: storedOutcomes(row),
		}
		if row.EstimatedFailures != nil && row.EstimatedExcess != nil {
			c.Estimated = &Estimated{Failures: float64(*row.EstimatedFailures), Excess: float64(*row.EstimatedExcess)}
		}
		if row.ExpectedBy != nil {
			c.ExpectedBy = *row.ExpectedBy
		}
		clusters[row.Idx] = c
	}
	return clusters, nil
}

// storedOutcomes reads a stored cluster's outcome split back; nil when the task had no
// labels.
func storedOutcomes(row dbsqlc.ListTaskClustersRow) *Outcomes {
	if row.QValue == nil {
		return nil
	}
	f := func(v *float32) float64 {
		if v == nil {
			return 0
		}
		return float64(*v)
	}
	return &Outcomes{
		Failed: int(row.LabelFailed), Succeeded: int(row.LabelSucceeded), Unlabelled: int(row.LabelUnlabelled),
		FailureRateIn: f(row.FailureRateIn), FailureRateOut: f(row.FailureRateOut), FailureLift: f(row.FailureLift),
		ExcessFailures: f(row.ExcessFailures), PValue: *row.PValue, QValue: *row.QValue,
	}
}

// ResultsFromRows reads a task's stored Actions back as the results AssignRanks and
// Rerank rank: the pipeline's ranking after the Actions stage and an owner's review
// read them alike.
func ResultsFromRows(rows []dbsqlc.ListActionCheckpointsRow) []ActionResult {
	out := make([]ActionResult, len(rows))
	for i, a := range rows {
		out[i] = ActionResult{CandidateIndex: int(a.CandidateIndex), ClusterIdx: int(a.ClusterIdx), Written: a.Status.Written(), Error: a.Error}
	}
	return out
}
