package pipeline

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParallelNeverExceedsTheCap(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 4} {
		var inFlight, peak atomic.Int32
		var mu sync.Mutex
		var done []int
		items := make([]int, 40)
		for i := range items {
			items[i] = i
		}
		entered, release := make(chan struct{}), make(chan struct{})
		go func() {
			// Release calls only in waves of n that are all in flight at once: the cap
			// is reached, and the peak shows it is never passed.
			for remaining := len(items); remaining > 0; {
				wave := min(n, remaining)
				for range wave {
					<-entered
				}
				for range wave {
					release <- struct{}{}
				}
				remaining -= wave
			}
		}()
		err := parallel(n, sliceItems(items), func() bool { return false }, func(i int, _ func()) error {
			now := inFlight.Add(1)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			entered <- struct{}{}
			<-release
			inFlight.Add(-1)
			mu.Lock()
			done = append(done, i)
			mu.Unlock()
			return nil
		})
		require.NoError(t, err)
		require.Len(t, done, len(items))
		require.Equal(t, n, int(peak.Load()), "cap %d reached and never passed", n)
	}
}

func TestParallelStopsStartingAfterStopOrError(t *testing.T) {
	t.Parallel()
	items := make([]int, 100)
	for i := range items {
		items[i] = i
	}
	var started atomic.Int32
	err := parallel(1, sliceItems(items), func() bool { return started.Load() >= 5 }, func(int, func()) error {
		started.Add(1)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, int32(5), started.Load())

	boom := errors.New("boom")
	started.Store(0)
	err = parallel(1, sliceItems(items), func() bool { return false }, func(i int, _ func()) error {
		started.Add(1)
		if i == 2 {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, int32(3), started.Load())
}

func TestParallelTurnsAPanicIntoAnError(t *testing.T) {
	t.Parallel()
	err := parallel(2, sliceItems([]int{1, 2, 3}), func() bool { return false }, func(i int, _ func()) error {
		if i == 2 {
			panic("bad conversation")
		}
		return nil
	})
	require.ErrorContains(t, err, "internal error (bad conversation); the details are in the server's log")
	require.NotContains(t, err.Error(), "goroutine", "the stack never reaches the owner")
	require.NotContains(t, err.Error(), ".go:")
	var pe *panicError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, string(pe.stack), "parallel_test.go", "the stack is kept for the log")
}

// Calls that free their place early let the next ones start, but no more than twice
// the cap are alive at once: released calls cannot pile up behind a slow store.
func TestParallelReleasedCallsStayBounded(t *testing.T) {
	t.Parallel()
	const n = 2
	var alive, peak atomic.Int32
	gate := make(chan struct{})
	items := make([]int, 40)
	errc := make(chan error, 1)
	go func() {
		errc <- parallel(n, sliceItems(items), func() bool { return false }, func(_ int, release func()) error {
			now := alive.Add(1)
			for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
			}
			release()
			<-gate
			alive.Add(-1)
			return nil
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for alive.Load() < 2*n {
		require.True(t, time.Now().Before(deadline), "released calls let the next ones start")
		runtime.Gosched()
	}
	close(gate)
	require.NoError(t, <-errc)
	require.EqualValues(t, 2*n, peak.Load())
}

func TestBackgroundReturnsItsResultToEveryWait(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan func() (int, error))
	go func() { started <- background(func() (int, error) { <-release; return 42, nil }) }()
	var wait func() (int, error)
	select {
	case wait = <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("background waited for do instead of running it on a goroutine of its own")
	}
	close(release)
	for range 2 {
		v, err := wait()
		require.NoError(t, err)
		require.Equal(t, 42, v)
	}

	broken := errors.New("feature log unreadable")
	_, err := background(func() (int, error) { return 0, broken })()
	require.ErrorIs(t, err, broken)

	_, err = background(func() (int, error) { panic("bad driver") })()
	var pe *panicError
	require.ErrorAs(t, err, &pe, "a panic is an error")
	require.ErrorContains(t, err, "bad driver")
}
