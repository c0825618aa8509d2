package check

import (
	"fmt"
	"io"
	"strings"
)

// comparison is what the check reads of compare.json (docs/compare-json.md).
type comparison struct {
	Baseline struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"baseline"`
	Clusters []cluster `json:"clusters"`
}

type cluster struct {
	Type     string  `json:"type"`
	Category string  `json:"category"`
	Title    string  `json:"title"`
	Baseline side    `json:"baseline"`
	Current  side    `json:"current"`
	Change   string  `json:"change"`
	PValue   float64 `json:"p_value"`
}

type side struct {
	Conversations int     `json:"conversations"`
	Share         float64 `json:"share"`
}

// significance is the p-value under which a change counts (compare.Significance).
const significance = 0.05

// regressed reports what the check fails on: a cluster that got significantly
// worse, or a new one significantly more than none.
func (c cluster) regressed() bool {
	return c.Change == "worse" || (c.Change == "new" && c.PValue < significance)
}

// verdict prints every cluster that changed and fails with Regressed when one got
// significantly worse.
func verdict(cmp comparison, out io.Writer) error {
	fmt.Fprintf(out, "Compared with %s (%s):\n", cmp.Baseline.ID, cmp.Baseline.Title)
	var regressions []string
	changed := 0
	for _, c := range cmp.Clusters {
		if c.Change == "same" {
			continue
		}
		changed++
		mark := "  "
		if c.regressed() {
			mark = "✗ "
			regressions = append(regressions, c.Title)
		}
		fmt.Fprintf(out, "%s%-8s %s [%s %s]: %s → %s (p = %.3g)\n", mark, c.Change, c.Title, c.Type, c.Category,
			share(c.Baseline), share(c.Current), c.PValue)
	}
	if changed == 0 {
		fmt.Fprintf(out, "  no cluster changed significantly (%d compared)\n", len(cmp.Clusters))
	}
	if len(regressions) > 0 {
		return exit(Regressed, "%d %s significantly worse than in the previous run: %s",
			len(regressions), plural(len(regressions), "cluster got", "clusters got"), strings.Join(regressions, "; "))
	}
	fmt.Fprintln(out, "No cluster got significantly worse.")
	return nil
}

func share(s side) string {
	return fmt.Sprintf("%d (%.1f%%)", s.Conversations, 100*s.Share)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
