package detector

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Vocabulary bounds: a term must occur in minDocs conversations to be learned from
// (one conversation's quirk is not a pattern), and at most maxTerms terms are kept, the
// most widespread first. The lexicon of the training set takes at most maxTracked
// distinct terms, those seen first, so memory stays bounded however many distinct
// words the conversations hold.
const (
	minDocs    = 2
	maxTerms   = 20000
	maxTracked = 400000
)

// termCount is one term of a compact document: its lexicon id and count.
type termCount struct {
	id, n int32
}

// lexicon interns the terms of the training documents and counts in how many
// documents each occurs, so a document is held as a short list of ids.
type lexicon struct {
	ids   map[string]int32
	terms []string
	df    []int32
	docs  int
}

func newLexicon() *lexicon { return &lexicon{ids: map[string]int32{}} }

// compact interns a document's terms (new ones while there is room) and returns its
// terms as ids, in id order.
func (l *lexicon) compact(terms map[string]int32) []termCount {
	l.docs++
	out := make([]termCount, 0, len(terms))
	for t, n := range terms {
		id, ok := l.ids[t]
		if !ok {
			if len(l.terms) >= maxTracked {
				continue
			}
			id = int32(len(l.terms))
			l.ids[strings.Clone(t)] = id
			l.terms, l.df = append(l.terms, t), append(l.df, 0)
		}
		l.df[id]++
		out = append(out, termCount{id, n})
	}
	slices.SortFunc(out, func(a, b termCount) int { return cmp.Compare(a.id, b.id) })
	return out
}

// vocabulary keeps the terms of at least minDocs documents, the maxTerms most frequent
// (ties by the term), with the smoothed idf ln((1+n)/(1+df)) + 1, and maps each lexicon
// id to its column (-1 for a term left out).
func (l *lexicon) vocabulary() (vocabulary, []int32) {
	var kept []int32
	for id, n := range l.df {
		if n >= minDocs {
			kept = append(kept, int32(id))
		}
	}
	slices.SortFunc(kept, func(a, b int32) int {
		return cmp.Or(cmp.Compare(l.df[b], l.df[a]), strings.Compare(l.terms[a], l.terms[b]))
	})
	kept = kept[:min(len(kept), maxTerms)]
	slices.SortFunc(kept, func(a, b int32) int { return strings.Compare(l.terms[a], l.terms[b]) })
	v := vocabulary{Terms: make([]string, len(kept)), IDF: make([]float64, len(kept))}
	col := make([]int32, len(l.terms))
	for i := range col {
		col[i] = -1
	}
	for i, id := range kept {
		v.Terms[i] = l.terms[id]
		v.IDF[i] = math.Log(float64(1+l.docs)/float64(1+l.df[id])) + 1
		col[id] = int32(i)
	}
	v.buildIndex()
	return v, col
}

// vocabulary is the terms a model weighs, in column order (sorted), with their inverse
// document frequency.
type vocabulary struct {
	Terms  []string  `json:"terms"`
	IDF    []float64 `json:"idf"`
	index  map[string]int
	blocks []uint8 // each column's blockOf
}

func (v *vocabulary) buildIndex() {
	v.index = make(map[string]int, len(v.Terms))
	v.blocks = make([]uint8, len(v.Terms))
	for i, t := range v.Terms {
		v.index[t] = i
		v.blocks[i] = uint8(blockOf(t))
	}
}
