package ingest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpillOrder adds records in random order through a budget of a few records and
// reads them back sorted, with and without regrouping, against a plain sort.
func TestSpillOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	type rec struct {
		group uint32
		k1    float64
		k2    int64
		data  string
	}
	var recs []rec
	for i := range 3000 {
		recs = append(recs, rec{uint32(rng.IntN(40)), float64(rng.IntN(3)), int64(rng.IntN(5) - 2), fmt.Sprint("record ", i)})
	}
	remap := func(g uint32) uint32 { return 100 - g/2 } // pairs of groups merge, order reversed
	for _, withRemap := range []bool{false, true} {
		sp := newSpill(2<<10, t.TempDir())
		for _, r := range recs {
			require.NoError(t, sp.add(r.group, r.k1, r.k2, []byte(r.data)))
		}
		want := slices.Clone(recs)
		var fn func(uint32) uint32
		if withRemap {
			fn = remap
			for i := range want {
				want[i].group = remap(want[i].group)
			}
		}
		slices.SortStableFunc(want, func(a, b rec) int {
			switch {
			case a.group != b.group:
				return int(a.group) - int(b.group)
			case a.k1 != b.k1:
				return int(a.k1 - b.k1)
			}
			return int(a.k2 - b.k2)
		})
		var got []rec
		require.NoError(t, sp.each(fn, func(g uint32, data []byte) error {
			got = append(got, rec{group: g, data: string(data)})
			return nil
		}))
		require.Len(t, got, len(want))
		for i := range want {
			require.Equal(t, want[i].group, got[i].group, "record %d", i)
			require.Equal(t, want[i].data, got[i].data, "record %d", i)
		}
		require.Greater(t, sp.spilled(), int64(0))
		sp.close()
	}
}
