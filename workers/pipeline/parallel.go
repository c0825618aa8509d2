package pipeline

import (
	"fmt"
	"iter"
	"runtime/debug"
	"sync"
)

// parallel calls do for each item of items, at most n calls in flight, starting them
// in item order. Before each start it asks stop, and it starts nothing more once stop
// says so, items yield an error, or a call returned one; calls already running are
// waited for. It returns the first error (from items or a call), after every started
// call has returned. Which calls finish first is up to them: the units' own results
// carry their position where order matters.
//
// A call may free its place early with release, once the part the limit is about is
// over (its model call): the next call starts while this one stores its result. Calls
// that released their place still count against a second limit of n more, so they
// cannot pile up behind a slow store.
func parallel[T any](n int, items iter.Seq2[T, error], stop func() bool, do func(item T, release func()) error) error {
	n = max(n, 1)
	slots := make(chan struct{}, n)
	alive := make(chan struct{}, 2*n)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return first != nil
	}
	for item, err := range items {
		if err != nil {
			fail(err)
			break
		}
		alive <- struct{}{}
		slots <- struct{}{} // wait for a free slot before deciding to start
		if failed() || stop() {
			<-slots
			<-alive
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-alive }()
			var once sync.Once
			release := func() { once.Do(func() { <-slots }) }
			defer release()
			if err := protect(func(item T) error { return do(item, release) }, item); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	return first
}

// protect calls do, turning a panic into a *panicError: a unit runs on a goroutine of
// its own, beyond the worker's recover, and one bad conversation must not take the
// process (and the web server it lives in) down.
func protect[T any](do func(T) error, item T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return do(item)
}

// panicError is a recovered panic. Its message, which reaches the task's owner (the
// task's error, its page, report.md), names the panic in a sentence; the stack is for
// the server's log only (Pipeline.Run logs it).
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string {
	return fmt.Sprintf("pipeline: internal error (%v); the details are in the server's log", e.value)
}

// sliceItems yields the elements of s, for parallel.
func sliceItems[T any](s []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, v := range s {
			if !yield(v, nil) {
				return
			}
		}
	}
}

// background calls do on a goroutine of its own at once and returns a function that
// waits for it and returns its result, a panic as an error; that function may be
// called more than once.
func background[T any](do func() (T, error)) func() (T, error) {
	var (
		v    T
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		err = protect(func(struct{}) (err error) {
			v, err = do()
			return err
		}, struct{}{})
	}()
	return func() (T, error) {
		<-done
		return v, err
	}
}
