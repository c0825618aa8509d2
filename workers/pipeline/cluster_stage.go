package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/cluster"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/drivers"
)

// cluster groups the findings of the diagnosed conversations into issue clusters and
// stores them, with every finding's cluster, in one transaction. Clusters stored by an
// earlier attempt are reused as they are, so a resumed task's Actions refer to the
// same clusters. Either way the clusters are returned as stored, so a fresh run and a
// resumed one select the same Action candidates.
func (r *run) cluster(ctx context.Context) ([]cluster.Cluster, error) {
	stored, err := r.storedClusters(ctx)
	if err != nil || len(stored) > 0 || r.clustersStored() {
		return stored, err
	}
	if err := r.buildClusters(ctx); err != nil {
		return nil, err
	}
	return r.storedClusters(ctx)
}

// clustersStored reports whether an earlier attempt stored the clusters: it moved the
// task past clustering, or the clusters' transaction marked the stage's one step
// done. A task whose diagnoses found nothing has no cluster rows to say so, but may
// have stored its failure drivers, which must not be stored twice.
func (r *run) clustersStored() bool {
	s := r.state
	return s.Stage.After(taskstate.Clustering) || (s.Stage == taskstate.Clustering && s.ProgressDone > 0)
}

func (r *run) storedClusters(ctx context.Context) ([]cluster.Cluster, error) {
	rows, err := r.q.ListTaskClusters(ctx, r.p.pool, dbsqlc.ListTaskClustersParams{TaskID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return nil, fmt.Errorf("pipeline: read clusters: %w", err)
	}
	return cluster.FromRows(rows)
}

func (r *run) buildClusters(ctx context.Context) error {
	if err := r.lease.Progress(ctx, taskstate.Clustering, 0, 1); err != nil {
		return err
	}
	outcomes, err := r.outcomes(ctx)
	if err != nil {
		return err
	}
	// A labelled task's failure drivers are searched on a goroutine of their own while
	// the findings are read and grouped, which mostly waits on PostgreSQL. On an early
	// return the search is cancelled and waited for, so nothing is left using the run.
	var foundDrivers func() ([]drivers.Driver, error) // set for a labelled task
	if outcomes.labelled() {
		searchCtx, cancel := context.WithCancel(ctx)
		foundDrivers = background(func() ([]drivers.Driver, error) { return r.drivers(searchCtx) })
		defer func() {
			cancel()
			_, _ = foundDrivers()
		}()
	}
	clusters, titleTexts, err := r.clusterFindings(ctx)
	if err != nil {
		return err
	}
	if err := r.applyExpectedRules(ctx, clusters); err != nil {
		return err
	}
	cluster.SplitByOutcome(clusters, outcomes.labels)
	if r.scored {
		cluster.EstimateFailures(clusters, outcomes.labels, outcomes.scores)
	}
	raw, err := json.Marshal(clusterRows(clusters, titleTexts))
	if err != nil {
		return fmt.Errorf("pipeline: clusters: %w", err)
	}
	var check, driversRaw []byte
	if outcomes.labelled() {
		if check, err = json.Marshal(outcomes.check()); err != nil {
			return fmt.Errorf("pipeline: label check: %w", err)
		}
		found, err := foundDrivers()
		if err != nil {
			return err
		}
		rows, err := r.driverRows(ctx, found)
		if err != nil {
			return err
		}
		if driversRaw, err = json.Marshal(rows); err != nil {
			return fmt.Errorf("pipeline: drivers: %w", err)
		}
	}
	return r.inTx(ctx, "clusters", func(tx pgx.Tx) error {
		if err := r.q.InsertTaskClusters(ctx, tx, dbsqlc.InsertTaskClustersParams{Clusters: raw, TaskID: r.id, OwnerUserID: r.owner}); err != nil {
			return err
		}
		if err := r.assignFindings(ctx, tx, clusters); err != nil {
			return err
		}
		if err := r.refreshIssueColumns(ctx, tx, clusters); err != nil {
			return err
		}
		if _, err := r.q.SetClusterEvidence(ctx, tx, dbsqlc.SetClusterEvidenceParams{
			TaskID: r.id, OwnerUserID: r.owner, RankOrder: rankOrder(clusters), PerCluster: cluster.Examples,
		}); err != nil {
			return err
		}
		if check != nil {
			if _, err := r.q.SetTaskLabelCheck(ctx, tx, dbsqlc.SetTaskLabelCheckParams{
				LabelCheck: check, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
			}); err != nil {
				return err
			}
			if err := r.q.InsertTaskDrivers(ctx, tx, dbsqlc.InsertTaskDriversParams{Drivers: driversRaw, TaskID: r.id, OwnerUserID: r.owner}); err != nil {
				return err
			}
		}
		return r.setStage(ctx, tx, taskstate.Clustering, 1, 1)
	})
}

// rankOrder is cluster.RankOrder as the evidence query takes it.
func rankOrder(clusters []cluster.Cluster) []int32 {
	order := cluster.RankOrder(clusters)
	out := make([]int32, len(order))
	for i, idx := range order {
		out[i] = int32(idx)
	}
	return out
}

// clusterFindings groups the findings: their titles first, in the order of their first
// findings, then the findings a page of conversations at a time. It also returns the
// titles' Texts, by title, of the findings that keep one (analyzer.Words).
func (r *run) clusterFindings(ctx context.Context) ([]cluster.Cluster, map[string]json.RawMessage, error) {
	b := cluster.NewBuilder()
	titles, err := r.q.ListFindingTitles(ctx, r.p.pool, dbsqlc.ListFindingTitlesParams{TaskID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: read finding titles: %w", err)
	}
	titleTexts := map[string]json.RawMessage{}
	for _, t := range titles {
		b.AddTitle(analyzer.FindingType(t.Type), t.Category, t.Expected, t.Title, len(t.TitleText) > 0)
		if len(t.TitleText) > 0 {
			titleTexts[t.Title] = t.TitleText
		}
	}
	for after := int32(0); after < r.lease.Task.ConversationCount; after += pageSize {
		rows, err := r.q.ListFindingsForClustering(ctx, r.p.pool, dbsqlc.ListFindingsForClusteringParams{
			TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, ThroughSeq: after + pageSize,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("pipeline: read findings: %w", err)
		}
		for _, row := range rows {
			b.Add(cluster.FindingRef{
				Seq: int(row.ConversationSeq), Idx: int(row.Idx), Type: analyzer.FindingType(row.Type),
				Category: row.Category, Title: row.Title, Severity: int(row.Severity), Confidence: float64(row.Confidence),
				Expected: row.Expected, Description: row.Description,
			})
		}
	}
	return b.Clusters(r.analysed), titleTexts, nil
}

// assignFindings records each finding's cluster in one statement, from the clusters'
// titles and whether their findings are expected (an owner's rule marks the cluster,
// not its findings).
func (r *run) assignFindings(ctx context.Context, tx pgx.Tx, clusters []cluster.Cluster) error {
	byTitle := map[string]int{}
	for _, c := range clusters {
		for _, title := range c.Titles {
			byTitle[strings.Join([]string{string(c.Type), c.Category, strconv.FormatBool(c.FindingsExpected()), title}, "\x1f")] = c.Idx
		}
	}
	raw, err := json.Marshal(byTitle)
	if err != nil {
		return fmt.Errorf("pipeline: cluster titles: %w", err)
	}
	_, err = r.q.SetFindingClusters(ctx, tx, dbsqlc.SetFindingClustersParams{Clusters: raw, TaskID: r.id, OwnerUserID: r.owner})
	return err
}

// refreshIssueColumns derives again what the conversation list filters and sorts by
// for the conversations of the clusters an owner's rule decided: stored with their
// diagnoses, it took the findings' own word on whether they are expected.
func (r *run) refreshIssueColumns(ctx context.Context, tx pgx.Tx, clusters []cluster.Cluster) error {
	var ruled []int32
	for _, c := range clusters {
		if c.Expected != c.FindingsExpected() {
			ruled = append(ruled, int32(c.Idx))
		}
	}
	if len(ruled) == 0 {
		return nil
	}
	_, err := r.q.RefreshIssueColumns(ctx, tx, dbsqlc.RefreshIssueColumnsParams{TaskID: r.id, OwnerUserID: r.owner, Idxs: ruled})
	return err
}

// clusterRow is one element of the JSON array InsertTaskClusters reads.
type clusterRow struct {
	Expected         bool                  `json:"expected"`
	ExpectedBy       string                `json:"expected_by,omitempty"`
	ExpectedReason   string                `json:"expected_reason,omitempty"`
	PolicyOverruled  bool                  `json:"policy_overruled,omitempty"`
	Outcomes         *cluster.Outcomes     `json:"outcomes,omitempty"`
	Estimated        *cluster.Estimated    `json:"estimated,omitempty"`
	Idx              int                   `json:"idx"`
	Type             string                `json:"type"`
	Category         string                `json:"category"`
	Title            string                `json:"title"`
	TitleText        json.RawMessage       `json:"title_text,omitempty"`
	ConversationSeqs []int                 `json:"conversation_seqs"`
	FindingCount     int                   `json:"finding_count"`
	Prevalence       float64               `json:"prevalence"`
	Severity         float64               `json:"severity"`
	Confidence       float64               `json:"confidence"`
	PriorityScore    float64               `json:"priority_score"`
	PriorityParts    cluster.PriorityParts `json:"priority_parts"`
}

// clusterRows are the clusters as InsertTaskClusters reads them, each titled in
// words and, where its findings keep one, by its title's Text (titleTexts, by title).
func clusterRows(clusters []cluster.Cluster, titleTexts map[string]json.RawMessage) []clusterRow {
	rows := make([]clusterRow, len(clusters))
	for i, c := range clusters {
		rows[i] = clusterRow{
			Idx: c.Idx, Type: string(c.Type), Category: c.Category, Title: c.Title, TitleText: titleTexts[c.Title],
			ConversationSeqs: c.ConversationSeqs, FindingCount: c.FindingCount, Prevalence: c.Prevalence,
			Severity: c.Severity, Confidence: c.Confidence, PriorityScore: c.PriorityScore, PriorityParts: c.Parts,
			Expected: c.Expected, ExpectedBy: c.ExpectedBy, ExpectedReason: c.ExpectedReason, PolicyOverruled: c.PolicyOverruled,
			Outcomes: c.Outcomes, Estimated: c.Estimated,
		}
	}
	return rows
}

// applyExpectedRules gives the clusters the owner's rules for this run's agent (and
// those for all agents) cover their word: what they marked expected in earlier runs
// stays out of this run's Actions (and no Action is written for it), and what they said
// the policy does not make expected is an issue. Another agent's rules do not apply: a
// mark made on the retail agent says nothing of the airline agent's failures.
func (r *run) applyExpectedRules(ctx context.Context, clusters []cluster.Cluster) error {
	var agent *int64
	if id := r.lease.Task.AgentID; id != 0 {
		agent = &id
	}
	rows, err := r.q.ListExpectedRules(ctx, r.p.pool, dbsqlc.ListExpectedRulesParams{OwnerUserID: r.owner, ForAgent: true, AgentID: agent})
	if err != nil {
		return fmt.Errorf("pipeline: read expected behaviour rules: %w", err)
	}
	rules := make([]cluster.Rule, len(rows))
	for i, row := range rows {
		rules[i] = cluster.Rule{Type: analyzer.FindingType(row.Type), Category: row.Category, Title: row.Title, Reason: row.Reason,
			NotExpected: !row.Expected}
	}
	cluster.ApplyRules(clusters, rules)
	return nil
}
