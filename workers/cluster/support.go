package cluster

import (
	"cmp"
	"math"
	"slices"
)

// SupportFormula is what the Actions are ranked by: how much each issue is believed
// to explain, as a lower confidence bound, so an issue seen in one or two
// conversations, whose rate could be chance, never outranks a common one. It is shown
// to the PM beside the priority score's formula.
const SupportFormula = "rank = failures explained, at least: max(0, n × (low − run's failure rate)), n its (labeled, or detector-scored) conversations and low the lower bound of the failure rate among them; then reach, at least: the lower bound of its share of analyzed conversations × (its mean severity − 1)/4 × its mean confidence, so minor findings (severity 1) add none and unsure ones less. Lower bounds are Wilson's, one-sided 95% (z = 1.645). An issue seen in one conversation gets no Action."

// Examples is how many findings each cluster shows as its evidence, at most: its
// Action quotes them.
const Examples = 3

// supportZ is the normal quantile of SupportFormula's one-sided 95% lower bounds.
const supportZ = 1.645

// The bases of a Support: what its failures are counted from.
const (
	BasisLabels     = "labels"     // the outcome labels of its conversations
	BasisDetector   = "detector"   // the agent's detector's failure scores, labels where there are
	BasisPrevalence = "prevalence" // no failures known: how common and how severe it is
)

// Support is an issue's standing in the ranking (SupportFormula), with the parts it
// was reached from, so the page can show them.
type Support struct {
	Basis string `json:"basis"`
	// Conversations is n: the conversations (its labelled ones, on labels).
	Conversations int `json:"conversations"`
	// Failures among them: failed (labels) or estimated (detector); 0 on prevalence.
	Failures float64 `json:"failures"`
	// RunRate is the failure rate of the run's analysed conversations (labelled ones on
	// labels), RateLow the lower bound of the rate among the issue's.
	RunRate float64 `json:"run_rate"`
	RateLow float64 `json:"rate_low"`
	// Explained is the failures the issue explains at least, what ranks first.
	Explained float64 `json:"explained"`
	// ShareLow is the lower bound of its share of analysed conversations; Reach is
	// ShareLow × (Severity − 1)/4 × Confidence, what ranks next.
	ShareLow   float64 `json:"share_low"`
	Severity   float64 `json:"severity"`
	Confidence float64 `json:"confidence"`
	Reach      float64 `json:"reach"`
	// SeenOnce: the issue was seen in one conversation only; it gets no Action.
	SeenOnce bool   `json:"seen_once"`
	Formula  string `json:"formula"`
}

// Support works out c's standing by SupportFormula from what the cluster carries (as
// built or as read back from storage): its conversations and prevalence (so the
// number analysed), its severity and confidence, and its failures counted from labels
// (Outcomes) when every one of its conversations has one, else estimated by a
// detector (Estimated), else counted from the labels there are; each one's run rate
// is what its excess was counted against.
func (c Cluster) Support() Support {
	n := max(c.ConversationCount, len(c.ConversationSeqs))
	s := Support{Basis: BasisPrevalence, Conversations: n, Severity: round4(c.Severity), Confidence: round4(c.Confidence),
		SeenOnce: n < 2, Formula: SupportFormula}
	if c.Prevalence > 0 {
		analysed := math.Round(float64(n) / c.Prevalence)
		s.ShareLow = roundSignificant(wilsonLow(float64(n), analysed))
	}
	s.Reach = roundSignificant(s.ShareLow * (min(max(c.Severity, 1), 5) - 1) / 4 * min(max(c.Confidence, 0), 1))
	allLabelled := c.Outcomes != nil && c.Outcomes.Unlabelled == 0 && c.Outcomes.Failed+c.Outcomes.Succeeded > 0
	switch {
	case c.Estimated != nil && n > 0 && !allLabelled:
		s.Basis, s.Failures = BasisDetector, c.Estimated.Failures
		s.RunRate = (c.Estimated.Failures - c.Estimated.Excess) / float64(n)
	case c.Outcomes != nil && c.Outcomes.Failed+c.Outcomes.Succeeded > 0:
		o := c.Outcomes
		s.Basis, s.Conversations, s.Failures = BasisLabels, o.Failed+o.Succeeded, float64(o.Failed)
		s.RunRate = (float64(o.Failed) - o.ExcessFailures) / float64(s.Conversations)
	default:
		return s
	}
	rate := min(max(s.RunRate, 0), 1)
	low := wilsonLow(s.Failures, float64(s.Conversations))
	s.RunRate, s.RateLow = round4(rate), round4(low)
	s.Explained = round4(max(0, float64(s.Conversations)*(low-rate)))
	return s
}

// roundSignificant rounds v to four significant digits: a share of 2 in 50,000
// conversations still orders against 3.
func roundSignificant(v float64) float64 {
	if v == 0 {
		return 0
	}
	scale := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// wilsonLow is the lower end of Wilson's score interval for x successes in n trials,
// one-sided at supportZ: 0 for n = 0. x may be fractional (a sum of probabilities).
func wilsonLow(x, n float64) float64 {
	if n <= 0 {
		return 0
	}
	p := min(max(x/n, 0), 1)
	z2 := supportZ * supportZ
	centre := p + z2/(2*n)
	spread := supportZ * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return max(0, (centre-spread)/(1+z2/n))
}

// BySupport orders clusters as the Actions are ranked (SupportFormula): issues seen
// once last, then the failures explained at least, the reach at least, the priority
// score, the conversations covered and the index. The "All issues" table reads in the
// same order.
func BySupport(a, b Cluster) int {
	sa, sb := a.Support(), b.Support()
	return cmp.Or(
		compareBool(sa.SeenOnce, sb.SeenOnce),
		cmp.Compare(sb.Explained, sa.Explained),
		cmp.Compare(sb.Reach, sa.Reach),
		cmp.Compare(b.PriorityScore, a.PriorityScore),
		cmp.Compare(b.ConversationCount, a.ConversationCount),
		cmp.Compare(a.Idx, b.Idx),
	)
}

// SameStanding reports whether the ranking (SupportFormula) leaves a and b tied, so
// the priority score orders them: the page shows the score only where it did.
func SameStanding(a, b Support) bool {
	return a.SeenOnce == b.SeenOnce && a.Explained == b.Explained && a.Reach == b.Reach
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// RankOrder lists the clusters' Idx in the order their Actions are ranked
// (BySupport), the issues marked expected, which get no Action, last: the order in
// which a PM meets their examples.
func RankOrder(clusters []Cluster) []int {
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, func(a, b Cluster) int { return cmp.Or(compareBool(a.Expected, b.Expected), BySupport(a, b)) })
	out := make([]int, len(sorted))
	for i, c := range sorted {
		out[i] = c.Idx
	}
	return out
}
