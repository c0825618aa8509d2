package ingest

import (
	"sort"

	"github.com/checkup-dev/checkup/db/locale"
)

// skipCount counts content skipped on the way in, by kind, with where it was first met.
type skipCount struct {
	n     map[string]int
	first locale.Text // location of the first skip
}

// skip counts one more piece of content of kind that the transcript cannot hold.
func (p *parser) skip(loc locale.Text, kind string) {
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
	parts := make([]locale.Text, len(kinds))
	for i, k := range kinds {
		parts[i] = locale.Msg("ingest.skipped_kind", "N", p.skipped.n[k], "Kind", k)
	}
	p.warn(p.skipped.first, "ingest.skipped", "Kinds", locale.List(parts...))
}
