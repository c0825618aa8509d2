package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/cluster"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// assignBatch is how many findings one statement assigns to their clusters.
const assignBatch = 5000

// cluster groups the findings of the diagnosed conversations into issue clusters and
// stores them, with every finding's cluster, in one transaction. Clusters stored by an
// earlier attempt are reused as they are, so a resumed task's Actions refer to the
// same clusters. Either way the clusters are returned as stored, so a fresh run and a
// resumed one select the same Action candidates.
func (r *run) cluster(ctx context.Context) ([]cluster.Cluster, error) {
	stored, err := r.storedClusters(ctx)
	if err != nil || len(stored) > 0 {
		return stored, err
	}
	if err := r.buildClusters(ctx); err != nil {
		return nil, err
	}
	return r.storedClusters(ctx)
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
	rows, err := r.q.ListFindingsForClustering(ctx, r.p.pool, dbsqlc.ListFindingsForClusteringParams{TaskID: r.id, OwnerUserID: r.owner})
	if err != nil {
		return fmt.Errorf("pipeline: read findings: %w", err)
	}
	refs := make([]cluster.FindingRef, len(rows))
	for i, row := range rows {
		refs[i] = cluster.FindingRef{
			Seq: int(row.ConversationSeq), Idx: int(row.Idx), Type: analyzer.FindingType(row.Type),
			Category: row.Category, Title: row.Title, Severity: int(row.Severity), Confidence: float64(row.Confidence),
			Expected: row.Expected, Description: row.Description,
		}
	}
	clusters := cluster.Build(refs, r.analysed)
	if err := r.applyExpectedRules(ctx, clusters); err != nil {
		return err
	}
	outcomes, err := r.outcomes(ctx)
	if err != nil {
		return err
	}
	cluster.SplitByOutcome(clusters, outcomes.labels)
	raw, err := json.Marshal(clusterRows(clusters))
	if err != nil {
		return fmt.Errorf("pipeline: clusters: %w", err)
	}
	var check, driversRaw []byte
	if outcomes.labelled() {
		if check, err = json.Marshal(outcomes.check()); err != nil {
			return fmt.Errorf("pipeline: label check: %w", err)
		}
		found, err := r.drivers(ctx)
		if err != nil {
			return err
		}
		if driversRaw, err = json.Marshal(driverRows(found)); err != nil {
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

// assignFindings records each finding's cluster, a batch per statement.
func (r *run) assignFindings(ctx context.Context, tx pgx.Tx, clusters []cluster.Cluster) error {
	p := dbsqlc.SetFindingClustersParams{TaskID: r.id, OwnerUserID: r.owner}
	flush := func() error {
		if len(p.Seqs) == 0 {
			return nil
		}
		_, err := r.q.SetFindingClusters(ctx, tx, p)
		p.Seqs, p.Idxs, p.ClusterIdxs = p.Seqs[:0], p.Idxs[:0], p.ClusterIdxs[:0]
		return err
	}
	for _, c := range clusters {
		for _, f := range c.Findings {
			p.Seqs = append(p.Seqs, int32(f.Seq))
			p.Idxs = append(p.Idxs, int32(f.Idx))
			p.ClusterIdxs = append(p.ClusterIdxs, int32(c.Idx))
			if len(p.Seqs) >= assignBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// clusterRow is one element of the JSON array InsertTaskClusters reads.
type clusterRow struct {
	Expected         bool                  `json:"expected"`
	ExpectedBy       string                `json:"expected_by,omitempty"`
	ExpectedReason   string                `json:"expected_reason,omitempty"`
	Outcomes         *cluster.Outcomes     `json:"outcomes,omitempty"`
	Idx              int                   `json:"idx"`
	Type             string                `json:"type"`
	Category         string                `json:"category"`
	Title            string                `json:"title"`
	ConversationSeqs []int                 `json:"conversation_seqs"`
	FindingCount     int                   `json:"finding_count"`
	Prevalence       float64               `json:"prevalence"`
	Severity         float64               `json:"severity"`
	Confidence       float64               `json:"confidence"`
	PriorityScore    float64               `json:"priority_score"`
	PriorityParts    cluster.PriorityParts `json:"priority_parts"`
}

func clusterRows(clusters []cluster.Cluster) []clusterRow {
	rows := make([]clusterRow, len(clusters))
	for i, c := range clusters {
		rows[i] = clusterRow{
			Idx: c.Idx, Type: string(c.Type), Category: c.Category, Title: c.Title,
			ConversationSeqs: c.ConversationSeqs, FindingCount: c.FindingCount, Prevalence: c.Prevalence,
			Severity: c.Severity, Confidence: c.Confidence, PriorityScore: c.PriorityScore, PriorityParts: c.Parts,
			Expected: c.Expected, ExpectedBy: c.ExpectedBy, ExpectedReason: c.ExpectedReason, Outcomes: c.Outcomes,
		}
	}
	return rows
}

// applyExpectedRules marks expected behaviour the clusters the owner's rules cover: what
// they marked in earlier runs stays out of this run's Actions (and no Action is written
// for it).
func (r *run) applyExpectedRules(ctx context.Context, clusters []cluster.Cluster) error {
	rows, err := r.q.ListExpectedRules(ctx, r.p.pool, r.owner)
	if err != nil {
		return fmt.Errorf("pipeline: read expected behaviour rules: %w", err)
	}
	rules := make([]cluster.Rule, len(rows))
	for i, row := range rows {
		rules[i] = cluster.Rule{Type: analyzer.FindingType(row.Type), Category: row.Category, Title: row.Title, Reason: row.Reason}
	}
	cluster.ApplyRules(clusters, rules)
	return nil
}
