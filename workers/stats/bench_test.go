package stats

import "testing"

// BenchmarkFisherLargeTable runs the drivers' search's test on a table of 10,000
// conversations: a feature shared by 5,500 of them, 5,000 of which failed. Shared is a
// Fisher that has met the size before, as the search's does for every feature but the
// first; alone is FisherExact, which works out each log factorial as it needs it. See
// BENCHMARKS.md.
//
//	go test ./workers/stats -run '^$' -bench FisherLargeTable
func BenchmarkFisherLargeTable(b *testing.B) {
	t := Table{FailedWith: 3000, SucceededWith: 2500, FailedWithout: 2000, SucceededWithout: 2600}
	b.Run("shared", func(b *testing.B) {
		var f Fisher
		for b.Loop() {
			f.Exact(t)
		}
	})
	b.Run("alone", func(b *testing.B) {
		for b.Loop() {
			FisherExact(t)
		}
	})
}
