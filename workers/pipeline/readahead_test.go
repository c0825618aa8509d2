package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadAheadYieldsEveryPageInOrder(t *testing.T) {
	t.Parallel()
	var pages [][2]int32
	for p, err := range readAhead(context.Background(), 2*readPage+1, func(_ context.Context, after, through int32) ([2]int32, error) {
		return [2]int32{after, through}, nil
	}) {
		require.NoError(t, err)
		pages = append(pages, p)
	}
	require.Equal(t, [][2]int32{{0, readPage}, {readPage, 2 * readPage}, {2 * readPage, 3 * readPage}}, pages)
}

func TestReadAheadEndsAtTheFirstErrorOrPanic(t *testing.T) {
	t.Parallel()
	broken := errors.New("broken page")
	for name, fail := range map[string]func(){
		"error": func() {},
		"panic": func() { panic("bad transcript") },
	} {
		t.Run(name, func(t *testing.T) {
			var pages []int32
			var last error
			for p, err := range readAhead(context.Background(), 5*readPage, func(_ context.Context, after, _ int32) (int32, error) {
				if after == readPage {
					fail()
					return 0, broken
				}
				return after, nil
			}) {
				if err != nil {
					last = err
					continue
				}
				pages = append(pages, p)
			}
			require.Equal(t, []int32{0}, pages, "nothing after the failed page")
			require.Error(t, last)
			if name == "panic" {
				require.ErrorContains(t, last, "bad transcript")
			} else {
				require.ErrorIs(t, last, broken)
			}
		})
	}
}

func TestReadAheadEndsWithTheContextsError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var last error
	for _, err := range readAhead(ctx, 100*readPage, func(ctx context.Context, after, _ int32) (int32, error) {
		if after == 2*readPage {
			cancel()
			<-ctx.Done()
			return 0, ctx.Err()
		}
		return after, nil
	}) {
		last = err
	}
	require.ErrorIs(t, last, context.Canceled, "a canceled read is not the end of the conversations")
}

func TestForEachOnWorkersReturnsTheFirstFailureByPosition(t *testing.T) {
	t.Parallel()
	out := make([]int, 100)
	require.NoError(t, forEachOnWorkers(len(out), func(_, i int) error { out[i] = i * i; return nil }))
	for i, v := range out {
		require.Equal(t, i*i, v)
	}
	err := forEachOnWorkers(100, func(_, i int) error {
		switch i {
		case 70:
			return errors.New("seventy")
		case 30:
			panic("thirty")
		}
		return nil
	})
	require.ErrorContains(t, err, "thirty")
}

func TestWriteBehindStoresInOrderAndStopsAtTheFirstFailure(t *testing.T) {
	t.Parallel()
	var stored []int
	w := startWriteBehind(func(v int) error { stored = append(stored, v); return nil })
	for v := range 10 {
		require.NoError(t, w.put(v))
	}
	require.NoError(t, w.wait())
	require.NoError(t, w.wait(), "a second wait")
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, stored)

	lost := errors.New("lease lost")
	var after []int
	w = startWriteBehind(func(v int) error {
		if v == 3 {
			return lost
		}
		after = append(after, v)
		return nil
	})
	var putErr error
	for v := 0; v < 100 && putErr == nil; v++ {
		putErr = w.put(v)
	}
	require.ErrorIs(t, putErr, lost, "a later put tells of the failure")
	require.ErrorIs(t, w.wait(), lost)
	require.Equal(t, []int{0, 1, 2}, after, "nothing stored after the failure")

	w = startWriteBehind(func(int) error { panic("bad batch") })
	require.NoError(t, w.put(1))
	require.ErrorContains(t, w.wait(), "bad batch")
}
