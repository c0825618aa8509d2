package ingest

import (
	"fmt"
	"sort"
)

// skipCount counts content skipped on the way in, by kind, with where it was first met.
type skipCount struct {
	n     map[string]int
	first string // location of the first skip
}

// skip counts one more piece of content of kind that the transcript cannot hold.
func (p *parser) skip(loc, kind string) {
	if p.skipped.n == nil {
		p.skipped.n = map[string]int{}
		p.skipped.first = loc
	}
	p.skipped.n[kind]++
}

// finishSkipped puts the counts in the summary and one warning that lists them.
func (p *parser) finishSkipped() {
	if len(p.skipped.n) == 0 {
		return
	}
	p.sum.Skipped = p.skipped.n
	kinds := make([]string, 0, len(p.skipped.n))
	for k := range p.skipped.n {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %s", countText(p.skipped.n[k]), k)
	}
	p.warn(p.skipped.first, "content blocks that are not text or tool calls were skipped (%s); they are not analyzed", joinAnd(parts))
}
