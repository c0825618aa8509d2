package web

import (
	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/cluster"
)

// trendRuns is how many runs of a title the task list's trend shows.
const trendRuns = 8

// topIssues gives each listed task its top issue (the cluster of its first Action, or
// its most urgent issue without one) and, when its title was diagnosed more than once,
// the trend of that issue's share over the runs up to it: the issue matched in each
// run by type, category and title as a comparison matches it, 0 where a run does not
// have it.
func topIssues(l *locale.Localizer, rows []pages.TaskRow, runs store.TitleRuns) {
	clusters := map[uuid.UUID][]dbsqlc.ListRunClustersRow{}
	for _, c := range runs.Clusters {
		clusters[c.TaskID] = append(clusters[c.TaskID], c)
	}
	match := titleMatcher{}
	byTask := map[uuid.UUID][]dbsqlc.ListTitleRunsRow{}
	for _, r := range runs.Runs {
		byTask[r.TaskID] = append(byTask[r.TaskID], r)
	}
	for i := range rows {
		id, err := uuid.Parse(rows[i].Progress.TaskID)
		if err != nil {
			continue
		}
		top, ok := topIssue(clusters[id])
		if !ok {
			continue
		}
		title := report.SayStored(l, top.Title, top.TitleText)
		rows[i].TopIssue = &pages.TopIssue{Type: top.Type, Title: title, Share: l.Percent(float64(top.Prevalence))}
		series := byTask[id]
		if len(series) < 2 {
			continue
		}
		spark := components.Sparkline{Title: l.T("trend.title", "Title", title)}
		for _, run := range series {
			share := match.share(top, clusters[run.RunID])
			spark.Points = append(spark.Points, share)
			spark.Texts = append(spark.Texts, l.T("trend.point", "Time", l.Time(run.CreatedAt), "Share", l.Percent(share)))
		}
		spark.Caption = l.N("trend.caption", len(series), "First", l.Percent(spark.Points[0]), "Last", l.Percent(spark.Points[len(spark.Points)-1]))
		rows[i].Trend = &spark
	}
}

// topIssue is the cluster of a task's first Action, else its most urgent issue that is
// not expected behavior (clusters come most urgent first).
func topIssue(cs []dbsqlc.ListRunClustersRow) (dbsqlc.ListRunClustersRow, bool) {
	for _, c := range cs {
		if c.ActionRank != nil && *c.ActionRank == 1 && !c.Expected {
			return c, true
		}
	}
	for _, c := range cs {
		if !c.Expected {
			return c, true
		}
	}
	return dbsqlc.ListRunClustersRow{}, false
}

// titleMatcher remembers cluster.TitleMatch for pairs of titles: the runs of one
// title mostly repeat the same few, so a page matches each pair once.
type titleMatcher map[[2]string]float64 // the score, or -1 when not alike

// share is the share of the issue in one run's clusters: its best match by type,
// category and title, 0 when there is none.
func (m titleMatcher) share(issue dbsqlc.ListRunClustersRow, cs []dbsqlc.ListRunClustersRow) float64 {
	best, bestScore := 0.0, -1.0
	for _, c := range cs {
		if c.Type != issue.Type || c.Category != issue.Category || c.Expected {
			continue
		}
		key := [2]string{issue.Title, c.Title}
		score, seen := m[key]
		if !seen {
			var alike bool
			if score, alike = cluster.TitleMatch(issue.Title, c.Title); !alike {
				score = -1
			}
			m[key] = score
		}
		if score >= 0 && score > bestScore {
			best, bestScore = float64(c.Prevalence), score
		}
	}
	return best
}
