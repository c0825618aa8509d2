// Package drivers searches a task's labelled conversations for what is over-represented
// among the failed ones (docs/architecture.md#pipeline-stages, step 5): each tool
// called, each tool that returned an error, each kind of finding, how long the
// conversation was and how many turns the user took (by quartile of the task), and the
// words and word pairs of the user's and the agent's turns. Every feature gets a
// two-sided Fisher exact test; the q-values of Benjamini–Hochberg, within each kind of
// feature, correct for the many features tried, so a driver is a finding the data
// supports, not the luck of many comparisons. Each kind is its own family so that the
// thousands of words tried do not drown the dozen tools. The search is deterministic:
// the same conversations in any order give the same drivers.
package drivers

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"sort"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/stats"
)

// The kinds of feature.
const (
	KindTool       = "tool"        // the agent called this tool
	KindToolError  = "tool_error"  // this tool returned an error
	KindCategory   = "category"    // a finding of this category (expected behaviour aside)
	KindLength     = "length"      // the conversation's length, by quartile of the task
	KindUserTurns  = "user_turns"  // how many turns the user took, by quartile
	KindUserWords  = "user_words"  // a word or word pair the user wrote
	KindAgentWords = "agent_words" // a word or word pair the agent wrote
)

// Thresholds of the search.
const (
	// MaxQ is the highest q-value a driver may have.
	MaxQ = 0.05
	// MinFailed is how many failed conversations must have a driver.
	MinFailed = 3
	// minSupport is how many conversations must have a feature for it to be tested at
	// all: a filter that does not look at the labels, so the correction stays valid.
	// Words must also be in one labelled conversation in wordSupport.
	minSupport  = 3
	wordSupport = 20
	// MaxDrivers is how many drivers a task keeps, the strongest first.
	MaxDrivers = 25
	// maxExamples is how many failed conversations a driver names.
	maxExamples = 3
	// maxFeatures bounds the features counted at once; past it, the features seen in
	// the fewest conversations are dropped (one conversation, or more when that frees
	// too little), so memory stays bounded on any upload. A dropped feature seen again
	// is counted from then on: it can be undercounted by what it had when dropped.
	maxFeatures = 200_000
)

// Feature is one thing a conversation has.
type Feature struct {
	Kind string `json:"kind"`
	Name string `json:"feature"`
}

// Conversation is what the search reads of one labelled conversation.
type Conversation struct {
	Seq       int
	Failed    bool
	Turns     int // messages other than the system prompt
	UserTurns int
	Features  []Feature // duplicates are counted once
}

// Driver is a feature over-represented among the failed conversations.
type Driver struct {
	Feature
	Failed      int     `json:"failed"`    // failed conversations with the feature
	Succeeded   int     `json:"succeeded"` // successful conversations with it
	RateWith    float64 `json:"rate_with"`
	RateWithout float64 `json:"rate_without"`
	Lift        float64 `json:"lift"`
	PValue      float64 `json:"p_value"`
	QValue      float64 `json:"q_value"`
	Examples    []int   `json:"example_seqs"` // the first failed conversations with it, in upload order
	// Conversations are all the labelled conversations with it, in upload order: filled
	// by Drivers for lengths and user turns, by Members for the rest.
	Conversations []int `json:"conversation_seqs"`
}

// Search counts features one conversation at a time, so a large task streams through
// it; Drivers gives the result once every conversation was added. Conversations may
// come in any order: while fewer than maxFeatures features are seen, the same
// conversations give the same drivers.
type Search struct {
	counts            map[Feature]*count
	failed, succeeded int
	lengths           []lengthOf // per conversation, for the quartiles
	// dropAtMost is the count at or under which pruning drops a feature; it rises when a
	// pruning frees less than half of maxFeatures, so the map is scanned at most once per
	// maxFeatures/2 new features.
	dropAtMost int
	added      int // the conversations added so far
}

type count struct {
	failed, succeeded int
	examples          []int
	lastAdd           int // the Add that counted it last, so a conversation counts once
}

type lengthOf struct {
	seq, turns, userTurns int
	failed                bool
}

// New starts a search.
func New() *Search { return &Search{counts: map[Feature]*count{}, dropAtMost: 1} }

// Add counts one labelled conversation.
func (s *Search) Add(c Conversation) {
	if c.Failed {
		s.failed++
	} else {
		s.succeeded++
	}
	s.lengths = append(s.lengths, lengthOf{c.Seq, c.Turns, c.UserTurns, c.Failed})
	s.added++
	for _, f := range c.Features {
		n := countOf(s.counts, f)
		if n.lastAdd == s.added { // a duplicate within c
			continue
		}
		n.lastAdd = s.added
		n.add(c.Seq, c.Failed)
	}
	if len(s.counts) > maxFeatures {
		s.prune()
	}
}

// prune drops the features seen in at most dropAtMost conversations, raising it until
// the map is at most half full.
func (s *Search) prune() {
	for len(s.counts) > maxFeatures/2 {
		for f, n := range s.counts {
			if n.failed+n.succeeded <= s.dropAtMost {
				delete(s.counts, f)
			}
		}
		if len(s.counts) > maxFeatures/2 {
			s.dropAtMost++
		}
	}
}

func countIn(counts map[Feature]*count, f Feature, seq int, failed bool) {
	countOf(counts, f).add(seq, failed)
}

// countOf is f's count in counts, a new one when f has none.
func countOf(counts map[Feature]*count, f Feature) *count {
	n := counts[f]
	if n == nil {
		n = &count{}
		counts[f] = n
	}
	return n
}

// add counts one more conversation with the feature.
func (n *count) add(seq int, failed bool) {
	if failed {
		n.failed++
		n.examples = firstSeqs(n.examples, seq)
	} else {
		n.succeeded++
	}
}

// Drivers tests every feature seen in at least minSupport conversations (words: also in
// one labelled conversation in wordSupport) and returns
// those over-represented among failures with q ≤ MaxQ and at least MinFailed failed
// conversations, strongest first (q-value, then lift, then kind and name), at most
// MaxDrivers. It returns nil when there are no failed or no successful conversations.
func (s *Search) Drivers() []Driver {
	if s.failed == 0 || s.succeeded == 0 {
		return nil
	}
	// Counted apart, so Drivers changes nothing.
	quartiles, members := map[Feature]*count{}, map[Feature][]int{}
	s.addQuartiles(quartiles, members, KindLength, func(l lengthOf) int { return l.turns }, "turns")
	s.addQuartiles(quartiles, members, KindUserTurns, func(l lengthOf) int { return l.userTurns }, "user turns")
	var tested []Driver
	var fisher stats.Fisher
	words := max(minSupport, (s.failed+s.succeeded)/wordSupport)
	for f, n := range all(s.counts, quartiles) {
		support := minSupport
		if f.Kind == KindUserWords || f.Kind == KindAgentWords {
			support = words
		}
		if n.failed+n.succeeded < support {
			continue
		}
		t := stats.Table{
			FailedWith: n.failed, SucceededWith: n.succeeded,
			FailedWithout: s.failed - n.failed, SucceededWithout: s.succeeded - n.succeeded,
		}
		tested = append(tested, Driver{
			Feature: f, Failed: n.failed, Succeeded: n.succeeded,
			RateWith: t.RateWith(), RateWithout: t.RateWithout(), Lift: t.Lift(),
			PValue: fisher.Exact(t), Examples: slices.Clone(n.examples),
		})
	}
	// A fixed order before the correction, so ties among p-values rank the same way.
	sort.Slice(tested, func(i, j int) bool { return less(tested[i].Feature, tested[j].Feature) })
	var out []Driver
	for start := 0; start < len(tested); {
		end := start
		for end < len(tested) && tested[end].Kind == tested[start].Kind {
			end++
		}
		family := tested[start:end]
		ps := make([]float64, len(family))
		for i, d := range family {
			ps[i] = d.PValue
		}
		for i, q := range stats.BenjaminiHochberg(ps) {
			d := family[i]
			d.QValue = q
			if q <= MaxQ && d.Failed >= MinFailed && d.RateWith > d.RateWithout {
				out = append(out, d)
			}
		}
		start = end
	}
	slices.SortFunc(out, func(a, b Driver) int {
		return cmp.Or(cmp.Compare(a.QValue, b.QValue), cmp.Compare(b.Lift, a.Lift), compare(a.Feature, b.Feature))
	})
	out = out[:min(len(out), MaxDrivers)]
	for i := range out {
		if seqs, ok := members[out[i].Feature]; ok {
			slices.Sort(seqs)
			out[i].Conversations = seqs
		}
	}
	return out
}

// addQuartiles counts the quartile of every conversation's measure as a feature named
// by its range ("turns 31–58"). Quartile bounds come from the task's own
// distribution, so a long conversation means long for this agent.
func (s *Search) addQuartiles(into map[Feature]*count, members map[Feature][]int, kind string, measure func(lengthOf) int, unit string) {
	if len(s.lengths) < 4 {
		return
	}
	values := make([]int, len(s.lengths))
	for i, l := range s.lengths {
		values[i] = measure(l)
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	bounds := [3]int{sorted[len(sorted)/4], sorted[len(sorted)/2], sorted[3*len(sorted)/4]}
	name := func(q int) string {
		lo, hi := sorted[0], sorted[len(sorted)-1]
		if q > 0 {
			lo = bounds[q-1] + 1
		}
		if q < 3 {
			hi = bounds[q]
		}
		if lo >= hi {
			return fmt.Sprintf("%s %d (quartile %d)", unit, hi, q+1)
		}
		return fmt.Sprintf("%s %d–%d (quartile %d)", unit, lo, hi, q+1)
	}
	for i, l := range s.lengths {
		q := 0
		for q < 3 && values[i] > bounds[q] {
			q++
		}
		f := Feature{Kind: kind, Name: name(q)}
		countIn(into, f, l.seq, l.failed)
		members[f] = append(members[f], l.seq)
	}
}

// all ranges over the features of every map in turn.
func all(maps ...map[Feature]*count) iter.Seq2[Feature, *count] {
	return func(yield func(Feature, *count) bool) {
		for _, m := range maps {
			for f, n := range m {
				if !yield(f, n) {
					return
				}
			}
		}
	}
}

// firstSeqs adds seq to the examples, which keep the maxExamples lowest seqs in order:
// the first failed conversations in the upload, whatever order they were added in.
func firstSeqs(examples []int, seq int) []int {
	i, _ := slices.BinarySearch(examples, seq)
	if i >= maxExamples {
		return examples
	}
	examples = slices.Insert(examples, i, seq)
	return examples[:min(len(examples), maxExamples)]
}

func less(a, b Feature) bool { return compare(a, b) < 0 }

func compare(a, b Feature) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
}

// Members finds, in a second pass over the same labelled conversations (or in the
// FeatureLog of the first, FillMembers), every one with the feature of one of the
// drivers, so each driver lists all its conversations, not only its examples: the
// search keeps only counts while it runs, so that its memory does not grow with
// features times conversations.
type Members struct {
	drivers []Driver
	index   map[Feature]int // feature → its driver, for those still without Conversations
	words   sides           // whose words those need
}

// NewMembers prepares the pass for ds, the result of Search.Drivers; ds is not
// modified.
func NewMembers(ds []Driver) *Members {
	m := &Members{drivers: slices.Clone(ds), index: map[Feature]int{}}
	for i, d := range m.drivers {
		if d.Conversations == nil {
			m.index[d.Feature] = i
			m.words.user = m.words.user || d.Kind == KindUserWords
			m.words.agent = m.words.agent || d.Kind == KindAgentWords
		}
	}
	return m
}

// Needed reports whether a driver still waits for its conversations: without one the
// second pass can be skipped.
func (m *Members) Needed() bool { return len(m.index) > 0 }

// Extract is drivers.Extract for the second pass: it reads the words of a side (user or
// agent) only when a driver of that side's words waits for its conversations.
func (m *Members) Extract(seq int, failed bool, conv transcript.Conversation, errorTurns []int, categories []string) Conversation {
	return extract(seq, failed, conv, errorTurns, categories, m.words)
}

// Add records c in every driver whose feature it has. Conversations must come in
// upload order.
func (m *Members) Add(c Conversation) {
	for _, f := range c.Features {
		if i, ok := m.index[f]; ok {
			d := &m.drivers[i]
			if n := len(d.Conversations); n == 0 || d.Conversations[n-1] != c.Seq {
				d.Conversations = append(d.Conversations, c.Seq)
			}
		}
	}
}

// Drivers are the drivers with their conversations.
func (m *Members) Drivers() []Driver { return m.drivers }
