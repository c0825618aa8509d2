package compare

// Count is how many clusters changed that way.
func (c Comparison) Count(ch Change) int {
	n := 0
	for _, cl := range c.Clusters {
		if cl.Change == ch {
			n++
		}
	}
	return n
}

// Regressions are the clusters that got significantly worse, and the new ones whose
// share is significantly more than none (p < Significance): what a check in CI fails on.
func (c Comparison) Regressions() []Cluster {
	var out []Cluster
	for _, cl := range c.Clusters {
		if cl.Change == Worse || (cl.Change == New && cl.PValue < Significance) {
			out = append(out, cl)
		}
	}
	return out
}
