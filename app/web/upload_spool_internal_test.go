package web

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpoolsShareOneCap fills two spools against one cap: the second passes it and is
// refused with 503, and closing them gives their room back.
func TestSpoolsShareOneCap(t *testing.T) {
	t.Parallel()
	disk := &spoolDisk{max: 150}
	first, err := newSpool(disk)
	require.NoError(t, err)
	require.NoError(t, first.fill(bytes.NewReader(make([]byte, 100))))
	second, err := newSpool(disk)
	require.NoError(t, err)
	require.ErrorIs(t, second.fill(bytes.NewReader(make([]byte, 100))), errSpoolFull)
	first.Close()
	second.Close()
	require.Zero(t, disk.used, "every byte given back")
	third, err := newSpool(disk)
	require.NoError(t, err)
	defer third.Close()
	require.NoError(t, third.fill(bytes.NewReader(make([]byte, 150))), "room again once the others closed")
}
