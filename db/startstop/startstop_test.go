package startstop_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/startstop"
)

// A loop runs once however often it is started, stops when asked, and Stop and
// Stopped agree; a second Stop returns at once.
func TestStartAndStopAreSafeTwice(t *testing.T) {
	t.Parallel()
	var b startstop.Base
	var runs atomic.Int32
	loop := func(ctx context.Context) {
		runs.Add(1)
		<-b.Stopping()
	}
	require.True(t, b.Start(context.Background(), loop))
	require.False(t, b.Start(context.Background(), loop), "a second Start runs nothing")
	require.False(t, b.IsStopping())
	require.NoError(t, b.Stop(context.Background()))
	require.NoError(t, b.Stop(context.Background()), "a second Stop")
	<-b.Stopped()
	require.EqualValues(t, 1, runs.Load())
	require.False(t, b.Start(context.Background(), loop), "no Start after Stop")
	require.EqualValues(t, 1, runs.Load())
}

// Stop without Start stops the service for good, and a Stop that waits longer than its
// context allows says so while the loop goes on winding down.
func TestStopWithoutStartAndStopThatTimesOut(t *testing.T) {
	t.Parallel()
	var never startstop.Base
	require.NoError(t, never.Stop(context.Background()))
	<-never.Stopped()

	var slow startstop.Base
	release := make(chan struct{})
	slow.Start(context.Background(), func(context.Context) { <-release })
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	require.ErrorIs(t, slow.Stop(ctx), context.DeadlineExceeded)
	require.True(t, slow.IsStopping())
	close(release)
	require.NoError(t, slow.Stop(context.Background()))
}

// Drain asks the loop to wind down without waiting, and WithStop's context ends then.
func TestDrainEndsTheStopContext(t *testing.T) {
	t.Parallel()
	var b startstop.Base
	ended := make(chan error, 1)
	b.Start(context.Background(), func(ctx context.Context) {
		ctx, cancel := b.WithStop(ctx)
		defer cancel()
		<-ctx.Done()
		ended <- ctx.Err()
	})
	b.Drain()
	b.Drain()
	require.ErrorIs(t, <-ended, context.Canceled)
	<-b.Stopped()
}
