package check

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/report/compare"
)

// verdict prints every cluster that changed and fails with Regressed when the
// comparison has regressions (compare.Comparison.Regressions: a cluster worse, or new
// and significantly more than none), the rule the compare page and compare.json
// document.
func verdict(cmp compare.Comparison, out io.Writer) error {
	fmt.Fprintf(out, "Compared with %s (%s):\n", cmp.Baseline.ID, printable(cmp.Baseline.Title))
	regressions := cmp.Regressions()
	changed := 0
	for _, c := range cmp.Clusters {
		if c.Change == compare.Same {
			continue
		}
		changed++
		mark := "  "
		if slices.Contains(regressions, c) {
			mark = "✗ "
		}
		fmt.Fprintf(out, "%s%-8s %s [%s %s]: %s → %s (p = %.2g)\n", mark, printable(string(c.Change)), printable(c.Title), printable(c.Type), printable(c.Category),
			share(c.Baseline), share(c.Current), c.PValue)
	}
	if changed == 0 {
		fmt.Fprintf(out, "  no cluster changed significantly (%d compared)\n", len(cmp.Clusters))
	}
	if len(regressions) > 0 {
		titles := make([]string, len(regressions))
		for i, c := range regressions {
			titles[i] = printable(c.Title)
		}
		return exit(Regressed, "%d %s significantly worse than in the previous run: %s",
			len(regressions), plural(len(regressions), "cluster got", "clusters got"), strings.Join(titles, "; "))
	}
	fmt.Fprintln(out, "No cluster got significantly worse.")
	return nil
}

func share(s compare.Side) string {
	return fmt.Sprintf("%d (%.1f%%)", s.Conversations, 100*s.Share)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// warnOtherAgent says when the baseline is a run of another agent than the current
// one: the comparison then tells two agents apart, not a change of one, and a
// regression may only be the difference between them.
func warnOtherAgent(c compare.Comparison, out io.Writer) {
	if c.Baseline.Agent != "" && c.Current.Agent != "" && c.Baseline.Agent != c.Current.Agent {
		fmt.Fprintf(out, "Warning: the baseline %s is a run of the agent %q, this one of %q: the comparison is between two agents, not of one over time.\n",
			c.Baseline.ID, c.Baseline.Agent, c.Current.Agent)
	}
}
