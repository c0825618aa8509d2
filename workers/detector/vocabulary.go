package detector

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Vocabulary bounds: a term must occur in minDocs conversations to be learned from
// (one conversation's quirk is not a pattern), and at most maxTerms terms are kept, the
// most widespread first. While counting, the table of terms seen is pruned of the rarest
// whenever it passes maxTracked, so memory stays bounded however many distinct words
// the conversations hold.
const (
	minDocs    = 2
	maxTerms   = 20000
	maxTracked = 400000
)

// docFrequency counts in how many documents each term occurs, within a bounded table.
type docFrequency struct {
	df    map[string]int32
	floor int32 // terms seen in no more documents than this were pruned
	docs  int
}

func newDocFrequency() *docFrequency { return &docFrequency{df: map[string]int32{}} }

// add counts one document's terms.
func (f *docFrequency) add(terms map[string]int32) {
	f.docs++
	for t := range terms {
		if n, ok := f.df[t]; ok {
			f.df[t] = n + 1
		} else {
			f.df[strings.Clone(t)] = 1
		}
	}
	for len(f.df) > maxTracked {
		f.floor++
		for t, n := range f.df {
			if n <= f.floor {
				delete(f.df, t)
			}
		}
	}
}

// vocabulary is the terms a model weighs, in column order (sorted), with their inverse
// document frequency.
type vocabulary struct {
	Terms  []string  `json:"terms"`
	IDF    []float64 `json:"idf"`
	index  map[string]int
	blocks []uint8 // each column's blockOf
}

// vocabulary keeps the terms of at least minDocs documents, the maxTerms most frequent
// (ties by the term), with the smoothed idf ln((1+n)/(1+df)) + 1.
func (f *docFrequency) vocabulary() vocabulary {
	type entry struct {
		term string
		df   int32
	}
	var kept []entry
	for t, n := range f.df {
		if n >= minDocs {
			kept = append(kept, entry{t, n})
		}
	}
	slices.SortFunc(kept, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.df, a.df), strings.Compare(a.term, b.term))
	})
	kept = kept[:min(len(kept), maxTerms)]
	slices.SortFunc(kept, func(a, b entry) int { return strings.Compare(a.term, b.term) })
	v := vocabulary{Terms: make([]string, len(kept)), IDF: make([]float64, len(kept))}
	for i, e := range kept {
		v.Terms[i] = e.term
		v.IDF[i] = math.Log(float64(1+f.docs)/float64(1+e.df)) + 1
	}
	v.buildIndex()
	return v
}

func (v *vocabulary) buildIndex() {
	v.index = make(map[string]int, len(v.Terms))
	v.blocks = make([]uint8, len(v.Terms))
	for i, t := range v.Terms {
		v.index[t] = i
		v.blocks[i] = uint8(blockOf(t))
	}
}
