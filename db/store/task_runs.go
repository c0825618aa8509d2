package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// The runs of a title, for the owner: the diagnoses a task can be compared with, and
// the clusters of several tasks at once, which the task list draws its top issues and
// trends from.

// CompareCandidates lists up to limit of owner's finished diagnoses with results other
// than task (whose title is title): those with the same title first, then the others,
// each newest first.
func (s *Store) CompareCandidates(ctx context.Context, task uuid.UUID, title string, owner Owner, limit int) ([]dbsqlc.ListCompareCandidatesRow, error) {
	rows, err := s.q.ListCompareCandidates(ctx, s.pool, dbsqlc.ListCompareCandidatesParams{
		OwnerUserID: owner.UserID(), ID: task, Title: title, MaxRows: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("store: compare candidates: %w", err)
	}
	return rows, nil
}

// TitleRuns is, for some of an owner's tasks, the finished runs of each one's title up
// to it, and the clusters of all those runs.
type TitleRuns struct {
	Runs     []dbsqlc.ListTitleRunsRow   // per task, its runs oldest first
	Clusters []dbsqlc.ListRunClustersRow // per run, most urgent first
}

// TitleRuns reads, for each of owner's tasks ids, the latest perTask finished runs of
// its title up to and including it, and the clusters of every run read: two queries,
// whatever the number of tasks.
func (s *Store) TitleRuns(ctx context.Context, ids []uuid.UUID, owner Owner, perTask int) (TitleRuns, error) {
	var out TitleRuns
	if len(ids) == 0 {
		return out, nil
	}
	var err error
	out.Runs, err = s.q.ListTitleRuns(ctx, s.pool, dbsqlc.ListTitleRunsParams{OwnerUserID: owner.UserID(), Ids: ids, PerTask: int32(perTask)})
	if err != nil {
		return out, fmt.Errorf("store: title runs: %w", err)
	}
	seen := map[uuid.UUID]bool{}
	var runs []uuid.UUID
	for _, r := range out.Runs {
		if !seen[r.RunID] {
			seen[r.RunID] = true
			runs = append(runs, r.RunID)
		}
	}
	if len(runs) == 0 {
		return out, nil
	}
	out.Clusters, err = s.q.ListRunClusters(ctx, s.pool, dbsqlc.ListRunClustersParams{OwnerUserID: owner.UserID(), TaskIds: runs})
	if err != nil {
		return out, fmt.Errorf("store: clusters of the runs: %w", err)
	}
	return out, nil
}
