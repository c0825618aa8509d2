package main

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Parts stop in the reverse of the order they started; an early part has begun to stop
// before the parts after it, and is still waited for before the parts before it. Errors
// are named, and a second close stops nothing again.
func TestLifecycleStopsInReverse(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	stopped := func(name string, err error) func() error {
		return func() error {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, name)
			return err
		}
	}
	var l lifecycle
	l.add("database", stopped("database", nil))
	draining := make(chan struct{})
	l.addEarly("worker", func() error {
		close(draining)
		return stopped("worker", errors.New("still draining"))()
	})
	l.add("server", func() error {
		<-draining // the worker began to stop before the server's stop
		return stopped("server", nil)()
	})

	err := l.close()
	require.ErrorContains(t, err, "worker: still draining")
	require.Equal(t, "database", order[len(order)-1], "the database closes last")
	require.ElementsMatch(t, []string{"worker", "server", "database"}, order)
	require.NoError(t, l.close(), "a second close")
	require.Len(t, order, 3)
}
