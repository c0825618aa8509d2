package detector

import (
	"cmp"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
)

// Candidate is a conversation that could be labelled next.
type Candidate struct {
	Seq int
	// Score is its failure score: the detector's when the agent has one.
	Score float64
	// Stratum says which part of the upload it stands for (its most severe issue's
	// category, its length, whether risk screening flagged it), for the spread
	// SuggestOrder makes while there is no detector.
	Stratum string
}

// randomShare is the share of suggestions SuggestOrder picks at random once there is
// a detector: labels chosen only where the detector is unsure would tell nothing of how
// well it does elsewhere, so one in five is drawn from the whole upload.
const randomShare = 5

// Short says which outcome the agent's labels are short of for a detector: the one
// needing more labels to reach MinPerOutcome, nothing when both have enough or need as
// many.
type Short int

// The outcomes labels can be short of.
const (
	ShortOfNone Short = iota
	ShortOfFailed
	ShortOfSucceeded
)

// ShortOf is the outcome failed and succeeded labels are short of.
func ShortOf(failed, succeeded int) Short {
	needFailed, needSucceeded := max(0, MinPerOutcome-failed), max(0, MinPerOutcome-succeeded)
	switch {
	case needSucceeded > needFailed:
		return ShortOfSucceeded
	case needFailed > needSucceeded:
		return ShortOfFailed
	}
	return ShortOfNone
}

// SuggestOrder orders the unlabelled conversations by how useful a label of each would
// be, the most useful first. Without a detector (scored false) it spreads the labels
// over the upload: one conversation of each stratum in turn, the largest strata first,
// each stratum's conversations in an order drawn from seed. While the labels are short
// of one outcome, two suggestions in three are instead the conversations the analysis'
// own score makes likeliest to be of that outcome, so a detector is reached without
// labelling far more of the common outcome (most of an agent's conversations may fail,
// or succeed). With a detector it puts the conversations it is least sure of first
// (score nearest 0.5), and every randomShare-th suggestion is drawn at random from the
// rest instead, so the labelled set stays a fair sample to estimate the detector on.
// The same input gives the same order.
func SuggestOrder(cands []Candidate, scored bool, short Short, seed uint64) []int {
	draw := func(seq int) uint64 {
		h := fnv.New64a()
		h.Write([]byte(strconv.FormatUint(seed, 10) + ":" + strconv.Itoa(seq)))
		return h.Sum64()
	}
	if !scored {
		spreadOrder := spread(cands, draw)
		if short == ShortOfNone {
			return spreadOrder
		}
		likely := slices.Clone(cands)
		slices.SortStableFunc(likely, func(a, b Candidate) int {
			if short == ShortOfSucceeded {
				return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.Seq, b.Seq))
			}
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Seq, b.Seq))
		})
		bySpread := make([]Candidate, len(spreadOrder))
		for i, seq := range spreadOrder {
			bySpread[i] = Candidate{Seq: seq}
		}
		return interleave(likely, bySpread, func(n int) bool { return n%3 == 2 })
	}
	byDoubt := slices.Clone(cands)
	slices.SortFunc(byDoubt, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(math.Abs(a.Score-0.5), math.Abs(b.Score-0.5)), cmp.Compare(a.Seq, b.Seq))
	})
	byDraw := slices.Clone(cands)
	slices.SortFunc(byDraw, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(draw(a.Seq), draw(b.Seq)), cmp.Compare(a.Seq, b.Seq))
	})
	return interleave(byDoubt, byDraw, func(n int) bool { return (n+1)%randomShare == 0 })
}

// interleave takes the conversations of first in order, but for the n-th suggestion
// (from 0) for which fromSecond holds, which is taken from second; each conversation
// once. first and second hold the same conversations.
func interleave(first, second []Candidate, fromSecond func(n int) bool) []int {
	out := make([]int, 0, len(first))
	taken := make(map[int]bool, len(first))
	next := func(list []Candidate, i *int) bool {
		for ; *i < len(list); *i++ {
			if !taken[list[*i].Seq] {
				taken[list[*i].Seq] = true
				out = append(out, list[*i].Seq)
				return true
			}
		}
		return false
	}
	a, b := 0, 0
	for len(out) < len(first) {
		if fromSecond(len(out)) && next(second, &b) {
			continue
		}
		if !next(first, &a) {
			next(second, &b)
		}
	}
	return out
}

// spread takes one conversation of each stratum in turn, the largest strata first
// (ties by name), each stratum's in the order draw gives.
func spread(cands []Candidate, draw func(int) uint64) []int {
	strata := map[string][]Candidate{}
	for _, c := range cands {
		strata[c.Stratum] = append(strata[c.Stratum], c)
	}
	names := make([]string, 0, len(strata))
	for name, members := range strata {
		names = append(names, name)
		slices.SortFunc(members, func(a, b Candidate) int {
			return cmp.Or(cmp.Compare(draw(a.Seq), draw(b.Seq)), cmp.Compare(a.Seq, b.Seq))
		})
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(len(strata[b]), len(strata[a])), cmp.Compare(a, b)) })
	out := make([]int, 0, len(cands))
	for round := 0; len(out) < len(cands); round++ {
		for _, name := range names {
			if members := strata[name]; round < len(members) {
				out = append(out, members[round].Seq)
			}
		}
	}
	return out
}

// Stratum names the part of an upload a conversation stands for: its most severe
// issue's category (or none), its length as a third of the upload (short, medium,
// long by its messages against the tertiles), and whether risk screening flagged it.
func Stratum(category string, messages int, tertiles [2]int, flagged bool) string {
	length := "short"
	switch {
	case messages > tertiles[1]:
		length = "long"
	case messages > tertiles[0]:
		length = "medium"
	}
	s := cmp.Or(category, "no issue") + "/" + length
	if flagged {
		s += "/flagged"
	}
	return s
}

// Tertiles are the message counts a third and two thirds of the way up.
func Tertiles(messages []int) [2]int {
	if len(messages) == 0 {
		return [2]int{}
	}
	sorted := slices.Clone(messages)
	slices.Sort(sorted)
	return [2]int{sorted[len(sorted)/3], sorted[2*len(sorted)/3]}
}
