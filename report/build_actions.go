package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// clusterQuotes turns each cluster's evidence findings into quotes: from each finding
// the quote it is shown by (analyzer.BestEvidence), with the finding's whole exchange.
func clusterQuotes(rows []dbsqlc.ListTaskClusterEvidenceRow) (map[int][]Quote, error) {
	quotes := map[int][]Quote{}
	for _, row := range rows {
		var ev []analyzer.Evidence
		if err := json.Unmarshal(row.Evidence, &ev); err != nil {
			return nil, fmt.Errorf("report: evidence of finding %d/%d: %w", row.ConversationSeq, row.Idx, err)
		}
		pick, ok := analyzer.BestEvidence(ev)
		if !ok {
			continue
		}
		idx := int(row.ClusterIdx)
		if len(quotes[idx]) >= cluster.Examples {
			continue
		}
		exchange := slices.Clone(ev)
		slices.SortStableFunc(exchange, func(a, b Evidence) int { return cmp.Compare(a.Turn, b.Turn) })
		q := Quote{
			ConversationSeq: int(row.ConversationSeq), ConversationID: row.ExternalID,
			Turn: pick.Turn, Quote: pick.Quote, Verified: pick.Verified, FindingTitle: row.Title,
			Description: row.Description, Exchange: exchange,
		}
		if len(row.Text) > 0 && string(row.Text) != "null" {
			q.Words = &analyzer.Words{}
			if err := json.Unmarshal(row.Text, q.Words); err != nil {
				return nil, fmt.Errorf("report: words of finding %d/%d: %w", row.ConversationSeq, row.Idx, err)
			}
		}
		quotes[idx] = append(quotes[idx], q)
	}
	return quotes, nil
}

// addAction adds a stored Action: to Actions when it was written and ranked, to
// FailedActions when it could not be written. The Action of a cluster its owner marked
// expected behaviour is left out, kept in the database for the mark's undo.
func (r *Report) addAction(a dbsqlc.ListTaskActionsRow, quotes map[int][]Quote) error {
	if a.ClusterExpected {
		return nil
	}
	if !a.Status.Written() || a.Rank == nil {
		msg := a.Error
		if msg == "" {
			msg = "the Action could not be written"
		}
		r.FailedActions = append(r.FailedActions, FailedAction{
			CandidateIndex: int(a.CandidateIndex), ClusterIdx: int(a.ClusterIdx),
			Type: a.ClusterType, ClusterTitle: a.ClusterTitle, Error: msg,
		})
		return nil
	}
	var act analyzer.Action
	if err := json.Unmarshal(a.Action, &act); err != nil {
		return fmt.Errorf("report: action %d: %w", a.CandidateIndex, err)
	}
	parts, err := decodeParts(a.PriorityParts)
	if err != nil {
		return err
	}
	ev := quotes[int(a.ClusterIdx)]
	if ev == nil {
		ev = []Quote{}
	}
	rec := act.Recommendation
	if rec == nil {
		rec = []string{}
	}
	r.Actions = append(r.Actions, Action{
		Rank: int(*a.Rank), CandidateIndex: int(a.CandidateIndex), Type: a.ClusterType,
		Category: a.ClusterCategory, Title: act.Title, Problem: act.Problem, Recommendation: rec,
		ExpectedImpact: act.ExpectedImpact, FixLocation: act.FixLocation,
		ClusterIdx: int(a.ClusterIdx), ClusterTitle: a.ClusterTitle, Conversations: int(a.ClusterSize),
		Share: float64(a.Prevalence), Severity: float64(a.ClusterSeverity), Confidence: float64(a.ClusterConfidence),
		PriorityScore: float64(a.PriorityScore), PriorityParts: parts, Evidence: ev, Words: act.Words,
	})
	return nil
}

// buildCluster builds the report's cluster from its row, with its conversations when
// they were read (conversations is not nil; a download writes them).
func buildCluster(c dbsqlc.ListTaskClustersRow, conversations map[int32][]int32, ranks map[int]int, policies map[int][]string) (Cluster, error) {
	parts, err := decodeParts(c.PriorityParts)
	if err != nil {
		return Cluster{}, err
	}
	var seqs []int
	if conversations != nil {
		seqs = make([]int, len(conversations[c.Idx]))
		for i, s := range conversations[c.Idx] {
			seqs[i] = int(s)
		}
	}
	cl := Cluster{
		Idx: int(c.Idx), Type: c.Type, Category: c.Category, Title: c.Title,
		Conversations: int(c.Conversations), ConversationSeqs: seqs, FindingCount: int(c.FindingCount),
		Prevalence: float64(c.Prevalence), Severity: float64(c.Severity), Confidence: float64(c.Confidence),
		PriorityScore: float64(c.PriorityScore), PriorityParts: parts, ActionRank: ranks[int(c.Idx)],
		Expected: c.Expected, ExpectedBy: c.ExpectedBy, ExpectedReason: c.ExpectedReason, PolicyOverruled: c.PolicyOverruled,
		Policies: policies[int(c.Idx)],
	}
	if len(c.TitleText) > 0 {
		if err := json.Unmarshal(c.TitleText, &cl.TitleText); err != nil {
			return Cluster{}, fmt.Errorf("report: title of cluster %d: %w", c.Idx, err)
		}
	}
	if cl.Policies == nil {
		cl.Policies = []string{}
	}
	if cl.ExpectedBy != nil && *cl.ExpectedBy == cluster.ExpectedByPolicy && cl.ExpectedReason == "" && len(cl.Policies) > 0 {
		cl.ExpectedReason = cl.Policies[0]
	}
	cl.OutcomeSplit = outcomeSplit(c)
	return cl, nil
}

// outcomeSplit reads a stored cluster's split by outcome label.
func outcomeSplit(c dbsqlc.ListTaskClustersRow) OutcomeSplit {
	var s OutcomeSplit
	if c.EstimatedFailures != nil && c.EstimatedExcess != nil {
		s.EstimatedFailures, s.EstimatedExcess = float(c.EstimatedFailures), float(c.EstimatedExcess)
	}
	if c.QValue == nil {
		return s
	}
	return OutcomeSplit{
		EstimatedFailures: s.EstimatedFailures, EstimatedExcess: s.EstimatedExcess,
		LabelOutcomes: &LabelOutcomes{Failed: int(c.LabelFailed), Succeeded: int(c.LabelSucceeded), Unlabelled: int(c.LabelUnlabelled)},
		FailureRateIn: float(c.FailureRateIn), FailureRateOut: float(c.FailureRateOut),
		FailureLift: float(c.FailureLift), ExcessFailures: float(c.ExcessFailures),
		PValue: c.PValue, QValue: c.QValue,
	}
}

// float widens a stored real, keeping null.
func float(v *float32) *float64 {
	if v == nil {
		return nil
	}
	f := math.Round(float64(*v)*1e4) / 1e4
	return &f
}

func buildFinding(f dbsqlc.ListTaskFindingsRow, ranks map[int]int) (Finding, error) {
	var ev []Evidence
	if err := json.Unmarshal(f.Evidence, &ev); err != nil {
		return Finding{}, fmt.Errorf("report: evidence of finding %d/%d: %w", f.ConversationSeq, f.Idx, err)
	}
	if ev == nil {
		ev = []Evidence{}
	}
	fd := Finding{
		ConversationSeq: int(f.ConversationSeq), ConversationID: f.ExternalID, Idx: int(f.Idx),
		Type: f.Type, Category: f.Category, Title: f.Title, Description: f.Description,
		Severity: int(f.Severity), Confidence: float64(f.Confidence), PriorityScore: float64(f.PriorityScore),
		Expected: f.Expected, Policy: f.Policy, Evidence: ev,
	}
	if len(f.Text) > 0 {
		fd.Words = &analyzer.Words{}
		if err := json.Unmarshal(f.Text, fd.Words); err != nil {
			return Finding{}, fmt.Errorf("report: words of finding %d/%d: %w", f.ConversationSeq, f.Idx, err)
		}
	}
	if f.ClusterIdx != nil {
		idx := int(*f.ClusterIdx)
		fd.ClusterIdx = &idx
		fd.ActionRank = ranks[idx]
	}
	return fd, nil
}

func buildConversation(c dbsqlc.ListTaskConversationSummariesRow) (Conversation, error) {
	flags := []RiskFlag{}
	if len(c.RiskFlags) > 0 {
		if err := json.Unmarshal(c.RiskFlags, &flags); err != nil {
			return Conversation{}, fmt.Errorf("report: risk flags of conversation %d: %w", c.Seq, err)
		}
	}
	if flags == nil {
		flags = []RiskFlag{}
	}
	conv := Conversation{
		Seq: int(c.Seq), ID: c.ExternalID, Messages: int(c.MessageCount), QCStatus: c.QcStatus,
		QCReason: c.QcReason, RiskFlags: flags, Selected: c.Selected, DiagnosisStatus: c.DiagnosisStatus,
		DiagnosisError: c.DiagnosisError, Outcome: c.Outcome, Summary: c.Summary, Label: c.Label,
		FailureScore: float(c.FailureScore), LabelSource: c.LabelSource, ReviewedLabel: c.ReviewedLabel,
		ReviewedAt: utc(c.ReviewedAt),
	}
	if c.FailedTurn != nil {
		conv.FailedTurn = int(*c.FailedTurn)
	}
	if conv.FailureScore != nil {
		conv.EstimatedOutcome = "succeeded"
		if *conv.FailureScore >= analyzer.FailedThreshold {
			conv.EstimatedOutcome = "failed"
		}
	}
	if c.DiagnosisPass != nil {
		conv.DiagnosisPass = *c.DiagnosisPass
	}
	return conv, nil
}

// clusterPolicies is, per cluster, the distinct policy sentences its evidence findings
// follow (expected behaviour only has them), in the order they are shown.
func clusterPolicies(rows []dbsqlc.ListTaskClusterEvidenceRow) map[int][]string {
	out := map[int][]string{}
	for _, row := range rows {
		idx := int(row.ClusterIdx)
		if row.Policy != "" && !slices.Contains(out[idx], row.Policy) {
			out[idx] = append(out[idx], row.Policy)
		}
	}
	return out
}

// buildDriver reads a stored failure driver.
func buildDriver(d dbsqlc.ListTaskDriversRow) Driver {
	out := Driver{
		Idx: int(d.Idx), Feature: d.Feature, Kind: d.Kind, Failed: int(d.Failed), Succeeded: int(d.Succeeded),
		RateWith: round4(float64(d.RateWith)), RateWithout: round4(float64(d.RateWithout)),
		Lift: round4(float64(d.Lift)), PValue: d.PValue, QValue: d.QValue, Examples: []Ref{},
		Conversations: int(d.Conversations),
	}
	for i, s := range d.ExampleSeqs {
		ref := Ref{Seq: int(s)}
		if i < len(d.ExampleIds) {
			ref.ID = d.ExampleIds[i]
		}
		out.Examples = append(out.Examples, ref)
	}
	if d.ExampleTurn != nil && d.ExampleQuote != nil && len(out.Examples) > 0 {
		out.Written = &DriverQuote{Ref: out.Examples[0], Turn: int(*d.ExampleTurn), Quote: *d.ExampleQuote}
	}
	return out
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// rankClusters gives each cluster and Action its Support and lists the clusters in
// the order the Actions are ranked by (cluster.BySupport), so the "All issues" table
// reads like the Actions above it.
func (r *Report) rankClusters(rows []dbsqlc.ListTaskClustersRow) error {
	clusters, err := cluster.FromRows(rows)
	if err != nil {
		return err
	}
	support := make(map[int]Support, len(clusters))
	for _, c := range clusters {
		support[c.Idx] = c.Support()
	}
	slices.SortFunc(clusters, cluster.BySupport)
	position := make(map[int]int, len(clusters))
	for i, c := range clusters {
		position[c.Idx] = i
	}
	for i := range r.Clusters {
		r.Clusters[i].Support = support[r.Clusters[i].Idx]
	}
	for i := range r.Actions {
		r.Actions[i].Support = support[r.Actions[i].ClusterIdx]
	}
	markPriorityDecided(r.Actions)
	slices.SortStableFunc(r.Clusters, func(a, b Cluster) int { return cmp.Compare(position[a.Idx], position[b.Idx]) })
	return nil
}

// markPriorityDecided marks the Actions (in rank order) whose place the priority score
// decided: a run of Actions of equal standing by the rank (cluster.SameStanding) whose
// priorities, as shown, are not all the same. An equal priority decides nothing, and
// showing it would say it did.
func markPriorityDecided(actions []Action) {
	for start := 0; start < len(actions); {
		end := start + 1
		for end < len(actions) && cluster.SameStanding(actions[start].Support, actions[end].Support) {
			end++
		}
		run := actions[start:end]
		decided := slices.ContainsFunc(run, func(a Action) bool { return Score(a.PriorityScore) != Score(run[0].PriorityScore) })
		for i := range run {
			run[i].PriorityDecided = decided
		}
		start = end
	}
}
