package search

import "slices"

// Postings gathers the posting lists of one batch of conversations: for each term, the
// conversations that have it. A batch's conversations share most of their words, so
// the lists are far fewer than the terms of every conversation (a dozen a conversation
// for batches of 500 of one agent's conversations, against ~250 terms each).
//
// The empty term, which no search looks for, lists every conversation added: it tells
// a task whose conversations were indexed, even if none has a word, from one diagnosed
// before search existed.
type Postings struct {
	first int32 // the first conversation added
	seqs  map[string][]int32
}

// NewPostings returns Postings with no conversation.
func NewPostings() *Postings { return &Postings{seqs: map[string][]int32{}} }

// Add records that conversation seq has terms (distinct, as Indexer.Terms makes
// them). Conversations are added in ascending seq.
func (p *Postings) Add(seq int32, terms []string) {
	if len(p.seqs) == 0 {
		p.first = seq
	}
	p.seqs[""] = append(p.seqs[""], seq)
	for _, t := range terms {
		p.seqs[t] = append(p.seqs[t], seq)
	}
}

// First is the first conversation added, which names the lists' batch.
func (p *Postings) First() int32 { return p.first }

// Terms is how many lists there are: what the Postings hold in memory grows with it.
func (p *Postings) Terms() int { return len(p.seqs) }

// Lists returns the posting lists as PostgreSQL takes them (InsertSearchPostings): the
// terms, sorted, so their rows go into the primary key in its order; how many
// conversations have each; and those conversations, term after term.
func (p *Postings) Lists() (terms []string, counts []int32, seqs []int32) {
	terms = make([]string, 0, len(p.seqs))
	total := 0
	for t, s := range p.seqs {
		terms = append(terms, t)
		total += len(s)
	}
	slices.Sort(terms)
	counts, seqs = make([]int32, len(terms)), make([]int32, 0, total)
	for i, t := range terms {
		counts[i] = int32(len(p.seqs[t]))
		seqs = append(seqs, p.seqs[t]...)
	}
	return terms, counts, seqs
}
