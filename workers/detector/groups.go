package detector

import "slices"

// Near-duplicates: two conversations are one scenario when they share an identifier,
// and at least half of the fewer's identifiers, or when the words their users write
// that few other conversations use overlap by wordJaccard or more (the same request
// retried in other words). Both compare only what is rare in the set: an identifier or
// a word more than commonShare of the conversations use (a year, a greeting) tells no
// scenario apart.
const (
	minSharedMarks  = 1
	sharedMarkShare = 0.5
	wordJaccard     = 0.15
	commonShare     = 0.1
	commonFloor     = 10
)

// Groups assigns each conversation a group such that near-duplicates share one,
// transitively. A group's number is the index of its first conversation, so groups
// depend only on the order of fps.
func Groups(fps []Fingerprint) []int {
	u := newUnion(len(fps))
	marks := make([][]uint64, len(fps))
	words := make([][]uint64, len(fps))
	for i, fp := range fps {
		marks[i], words[i] = fp.Marks, fp.Words
	}
	marks, words = rareOnly(marks), rareOnly(words)
	eachSharing(marks, func(i, j, shared int) {
		if shared >= minSharedMarks && float64(shared) >= sharedMarkShare*float64(min(len(marks[i]), len(marks[j]))) {
			u.join(i, j)
		}
	})
	eachSharing(words, func(i, j, shared int) {
		if float64(shared) >= wordJaccard*float64(len(words[i])+len(words[j])-shared) {
			u.join(i, j)
		}
	})
	out := make([]int, len(fps))
	for i := range out {
		out[i] = u.find(i)
	}
	return out
}

// rareOnly drops from each set the hashes more than commonShare of the sets hold.
func rareOnly(sets [][]uint64) [][]uint64 {
	df := map[uint64]int{}
	for _, s := range sets {
		for _, h := range s {
			df[h]++
		}
	}
	limit := max(commonFloor, int(commonShare*float64(len(sets))))
	out := make([][]uint64, len(sets))
	for i, s := range sets {
		out[i] = slices.DeleteFunc(slices.Clone(s), func(h uint64) bool { return df[h] > limit })
	}
	return out
}

// eachSharing calls fn for every pair i < j of sets that share a hash, with how many
// they share, in order of i and then j. The sets hold rare hashes only, so each
// posting list is short and the work stays near linear.
func eachSharing(sets [][]uint64, fn func(i, j, shared int)) {
	postings := map[uint64][]int{}
	for i, s := range sets {
		for _, h := range s {
			postings[h] = append(postings[h], i)
		}
	}
	for i, s := range sets {
		shared := map[int]int{}
		for _, h := range s {
			for _, j := range postings[h] {
				if j > i {
					shared[j]++
				}
			}
		}
		js := make([]int, 0, len(shared))
		for j := range shared {
			js = append(js, j)
		}
		slices.Sort(js)
		for _, j := range js {
			fn(i, j, shared[j])
		}
	}
}

// union is a disjoint-set forest whose roots are the least index of their set.
type union struct{ parent []int }

func newUnion(n int) *union {
	u := &union{parent: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
	}
	return u
}

func (u *union) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

func (u *union) join(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	u.parent[max(ra, rb)] = min(ra, rb)
}
