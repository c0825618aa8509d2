package percent_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/percent"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n, of int
		want  string
	}{
		{13, 200, "6.5%"}, {1, 100, "1%"}, {1, 300, "0.3%"}, {1, 50_000, "<0.1%"}, {27, 100, "27%"},
		{0, 100, "0%"}, {100, 100, "100%"}, {199, 200, ">99%"}, {1, 10, "10%"}, {199, 2000, "10%"},
		{19, 200, "9.5%"}, {5, 0, "0%"}, {2, 3, "67%"},
	} {
		require.Equal(t, c.want, percent.Of(c.n, c.of), "%d of %d", c.n, c.of)
	}
}

// TestStoredRealsReadTheSame: a share stored as a PostgreSQL real and read back is
// written as the exact fraction is, so the page (which reads stored shares) and the
// Action texts (written from counts) agree.
func TestStoredRealsReadTheSame(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]int{{13, 200}, {1, 100}, {7, 100}, {1, 3}, {29, 100}, {33, 1000}, {9, 92}} {
		stored := float64(float32(float64(c[0]) / float64(c[1])))
		require.Equal(t, percent.Of(c[0], c[1]), percent.Format(stored), "%d of %d", c[0], c[1])
	}
}
