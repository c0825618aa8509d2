package pipeline

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"
)

// readPage is how many transcripts are read at a time: small enough that the next page
// is read while the current one is decoded and checked or diagnosed, and that the
// pages in flight stay a few megabytes.
const readPage = 50

// pageWorkers is how many goroutines decode and examine the conversations of one page.
const pageWorkers = 2

// readAhead yields the pages read returns for the seqs 1..last, readPage seqs at a
// time in upload order, reading the next page on a goroutine of its own while the
// caller works on this one, so PostgreSQL and the cores work at once. The first error
// (or panic) of read, or the end of ctx, ends the pages with that error.
func readAhead[T any](ctx context.Context, last int32, read func(ctx context.Context, after, through int32) (T, error)) iter.Seq2[T, error] {
	type page struct {
		value T
		err   error
	}
	return func(yield func(T, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		pages := make(chan page, 1)
		go func() {
			defer close(pages)
			send := func(p page) bool {
				select {
				case pages <- p:
					return p.err == nil
				case <-ctx.Done():
					return false
				}
			}
			for after := int32(0); after < last; after += readPage {
				var v T
				err := protect(func(after int32) (err error) { // a panic too
					v, err = read(ctx, after, after+readPage)
					return err
				}, after)
				if !send(page{v, err}) {
					return
				}
			}
		}()
		defer func() {
			cancel()
			for range pages { // the reader has returned once pages is closed
			}
		}()
		for p := range pages {
			if !yield(p.value, p.err) || p.err != nil {
				return
			}
		}
		if err := ctx.Err(); err != nil { // ctx ended the reader before the last page
			var none T
			yield(none, err)
		}
	}
}

// forEachOnWorkers calls do(w, i) for every i < n on pageWorkers goroutines, w being the
// goroutine's number (for state of its own, used by one goroutine), and returns the
// error of the lowest i that failed; a panic is an error too. Callers keep the order by
// writing result i to their own slice.
func forEachOnWorkers(n int, do func(w, i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range pageWorkers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = protect(func(i int) error { return do(w, i) }, i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeBehind stores the values put to it on a goroutine of its own, one at a time and
// in order, so the caller prepares the next batch while this one is stored (written to
// PostgreSQL, or counted); at most one more waits its turn. After a store fails (or
// panics) nothing more is stored.
type writeBehind[T any] struct {
	values chan T
	done   chan struct{}
	err    error // set before done is closed
	finish sync.Once
}

// startWriteBehind starts the goroutine that calls store.
func startWriteBehind[T any](store func(T) error) *writeBehind[T] {
	w := &writeBehind[T]{values: make(chan T, 1), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for v := range w.values {
			if w.err = protect(store, v); w.err != nil {
				return
			}
		}
	}()
	return w
}

// put hands v to the store, waiting while one is stored and one waits; it returns the
// error of an earlier store once one failed.
func (w *writeBehind[T]) put(v T) error {
	select {
	case <-w.done:
		return w.err
	default:
	}
	select {
	case w.values <- v:
		return nil
	case <-w.done:
		return w.err
	}
}

// wait returns once everything put is stored, or a store failed, with that error. It
// may be called more than once; nothing may be put after it.
func (w *writeBehind[T]) wait() error {
	w.finish.Do(func() { close(w.values) })
	<-w.done
	return w.err
}
