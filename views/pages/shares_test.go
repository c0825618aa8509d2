package pages_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/offline"
)

// TestSharesReadTheSameEverywhere: 13 of 200 analyzed conversations and 1 of 100 are
// written alike on the task page, in actions.csv, in report.md and in the Action text
// the offline analyzer writes, with the shares read back as PostgreSQL stores them (as
// 32-bit reals).
func TestSharesReadTheSameEverywhere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n, of int
		want  string
	}{{13, 200, "6.5%"}, {1, 100, "1%"}} {
		stored := float64(float32(float64(c.n) / float64(c.of)))
		r := sampleReport("completed")
		r.Population.Analysed = c.of
		r.Actions = r.Actions[:1]
		r.Actions[0].Conversations, r.Actions[0].Share = c.n, stored
		r.Clusters = r.Clusters[:1]
		r.Clusters[0].Conversations, r.Clusters[0].Prevalence = c.n, stored

		doc, _ := render(t, pages.TaskShow(page, pages.TaskView{Report: r}))
		require.Equal(t, c.want, testid(doc, "top-issue").Find("td").Last().Text(), "top issues")
		require.Contains(t, testid(doc, "action-size").Text(), c.want+" of the", "the Action card")
		require.Equal(t, c.want, testid(doc, "cluster-share").Text(), "all issues")

		var csv, md bytes.Buffer
		require.NoError(t, report.WriteActionsCSV(&csv, r))
		require.Contains(t, csv.String(), ","+c.want+",", "actions.csv")
		require.NoError(t, report.WriteMarkdown(&md, r, english(t)))
		require.Contains(t, md.String(), "("+c.want+" of analy", "report.md, the Action")
		require.Contains(t, md.String(), "| "+c.want+" |", "report.md, the clusters")
		require.NotContains(t, md.String(), "1 conversations", "report.md says 1 conversation")

		action, err := offline.New(offline.Options{}).WriteAction(context.Background(), analyzer.ClusterBrief{
			Type: analyzer.TypeAction, Category: "user_repeats", Title: "Users repeat themselves",
			ConversationCount: c.n, AnalysedCount: c.of,
		})
		require.NoError(t, err)
		require.True(t, strings.Contains(action.Value.Problem, "("+c.want+")"), "the offline Action: %s", action.Value.Problem)
	}
}
