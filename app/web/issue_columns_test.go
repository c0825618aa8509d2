package web_test

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// conversationIssues is what a conversation's findings say once their clusters' standing
// is taken into account: the most severe finding that is an issue, and the categories
// of those findings.
type conversationIssues struct {
	maxSeverity int
	categories  []string
}

// requireIssuesFollowMarks reads every finding of task id with its cluster's standing
// and requires what the conversation list filters and sorts by to follow from the
// findings that are issues: a finding of a cluster that is expected behaviour (by the
// policy, a mark or a rule) is not one; a finding of a cluster its owner overruled is.
// The list filtered by category lists exactly the conversations with an issue of it,
// and each row's top finding, on every page, is its most severe issue, or says it has
// only expected behavior. It returns each conversation's issues.
func requireIssuesFollowMarks(t *testing.T, b loopBundle, id uuid.UUID, category string) map[int]conversationIssues {
	t.Helper()
	rows, err := b.pool.Query(t.Context(), `
		SELECT f.conversation_seq, f.severity, f.category, coalesce(k.expected, f.expected)
		FROM task_finding f
		LEFT JOIN task_cluster k ON k.task_id = f.task_id AND k.idx = f.cluster_idx
		WHERE f.task_id = $1`, id)
	require.NoError(t, err)
	findings, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Seq, Severity int
		Category      string
		Expected      bool
	}])
	require.NoError(t, err)
	want := map[int]conversationIssues{}
	hasFindings := map[int]bool{}
	for _, f := range findings {
		hasFindings[f.Seq] = true
		w := want[f.Seq]
		if !f.Expected {
			w.maxSeverity = max(w.maxSeverity, f.Severity)
			if !slices.Contains(w.categories, f.Category) {
				w.categories = append(w.categories, f.Category)
			}
		}
		slices.Sort(w.categories)
		want[f.Seq] = w
	}

	rows, err = b.pool.Query(t.Context(),
		`SELECT seq, max_severity, finding_categories FROM task_conversation WHERE task_id = $1 AND qc_status = 'kept' ORDER BY seq`, id)
	require.NoError(t, err)
	stored, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Seq, MaxSeverity int
		Categories       []string
	}])
	require.NoError(t, err)
	var withCategory []int
	for _, c := range stored {
		w := want[c.Seq]
		require.Equal(t, w.maxSeverity, c.MaxSeverity, "conversation %d: the most severe of its issues", c.Seq)
		require.Equal(t, w.categories, append([]string(nil), c.Categories...), "conversation %d: its issues' categories", c.Seq)
		if slices.Contains(w.categories, category) {
			withCategory = append(withCategory, c.Seq)
		}
	}
	listed, _ := listedSeqs(t, b.alice, "/tasks/"+id.String()+"/conversations?"+url.Values{"category": {category}, "sort": {"turns"}}.Encode())
	slices.Sort(listed)
	require.Equal(t, withCategory, listed, "the conversations listed with a finding of %s", category)

	onlyExpected := 0
	for next := "/tasks/" + id.String() + "/conversations?sort=severity"; next != ""; {
		doc := parse(t, b.alice.Get(t, next))
		page := testid(doc, "conversation-row")
		require.Positive(t, page.Length())
		for i := range page.Length() {
			row := page.Eq(i)
			seq, err := strconv.Atoi(row.AttrOr("data-seq", ""))
			require.NoError(t, err)
			top := "none"
			switch s := want[seq].maxSeverity; {
			case s > 0:
				top = "severity " + strconv.Itoa(s) + " of 5"
			case hasFindings[seq]:
				top = "only expected behavior"
				onlyExpected++
			}
			require.Contains(t, row.Find(`[data-testid="conversation-top-finding"]`).Text(), top, "conversation %d: its top finding is its most severe issue", seq)
		}
		next = doc.Find(`a[rel="next"]`).AttrOr("href", "")
	}
	require.Positive(t, onlyExpected, "some conversation has only findings that are expected behaviour")
	return want
}

// changedIssues are the conversations whose issues differ between two readings of
// requireIssuesFollowMarks.
func changedIssues(before, after map[int]conversationIssues) []string {
	var out []string
	for seq, a := range after {
		if b := before[seq]; b.maxSeverity != a.maxSeverity || !slices.Equal(b.categories, a.categories) {
			out = append(out, strconv.Itoa(seq))
		}
	}
	return out
}

// findingStanding opens the conversation of a finding of cluster idx of task id and
// returns what its page says of that finding's standing: its badge, or "" for none.
func findingStanding(t *testing.T, b loopBundle, id uuid.UUID, idx int) string {
	t.Helper()
	var seq int
	var title string
	require.NoError(t, b.pool.QueryRow(t.Context(), `SELECT conversation_seq, title FROM task_finding
		WHERE task_id = $1 AND cluster_idx = $2 ORDER BY conversation_seq, idx LIMIT 1`, id, idx).Scan(&seq, &title))
	doc := parse(t, b.alice.Get(t, "/tasks/"+id.String()+"/conversations/"+strconv.Itoa(seq)))
	finding := testid(doc, "finding").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find("header b").Text() == title
	})
	require.Positive(t, finding.Length(), "conversation %d shows its finding %q", seq, title)
	standing := finding.First().Find(`[data-testid="finding-expected"], [data-testid="finding-overruled"]`).Text()
	without := testid(doc, "estimate-without-word").Length() > 0
	require.Equal(t, standing == "marked as expected by you" || strings.HasPrefix(standing, "an issue:"), without,
		"conversation %d: the estimate says it leaves out the owner's word exactly when there is one", seq)
	return standing
}
