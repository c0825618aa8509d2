package main

import (
	"errors"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/stretchr/testify/require"
)

// In a container with little memory the soft limit is half of it; with plenty, or
// with none known, it is the default.
func TestMemoryLimitFitsTheContainer(t *testing.T) {
	t.Parallel()
	container := func(limit uint64, err error) func() (uint64, error) {
		return func() (uint64, error) { return limit, err }
	}
	require.Equal(t, int64(64<<20), memoryLimit(container(128<<20, nil)))
	require.Equal(t, int64(120<<20), memoryLimit(container(4<<30, nil)))
	require.Equal(t, int64(120<<20), memoryLimit(container(0, memlimit.ErrNoLimit)))
	require.Equal(t, int64(120<<20), memoryLimit(container(0, errors.New("cgroups is not supported on this system"))))
}
