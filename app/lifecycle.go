package main

import (
	"errors"
	"fmt"
	"log/slog"
)

// lifecycle is what a command has started, in order: close stops it in reverse, so
// nothing is stopped before what depends on it. A part added with early begins to stop
// as soon as close is called, beside the parts after it, and is waited for at its
// place: the worker stops claiming at once and drains while the server finishes its
// requests, and both end before the database closes.
type lifecycle struct {
	parts []lifecyclePart
}

type lifecyclePart struct {
	name  string
	stop  func() error
	early bool
}

// newLifecycle returns an empty lifecycle and what closes it, logging the parts that
// did not stop well: defer it.
func newLifecycle(logger *slog.Logger) (*lifecycle, func()) {
	l := &lifecycle{}
	return l, func() {
		if err := l.close(); err != nil {
			logger.Warn("shutdown", "err", err)
		}
	}
}

// add records a started part and how to stop it.
func (l *lifecycle) add(name string, stop func() error) {
	l.parts = append(l.parts, lifecyclePart{name: name, stop: stop})
}

// addEarly records a part that begins to stop as soon as close is called.
func (l *lifecycle) addEarly(name string, stop func() error) {
	l.parts = append(l.parts, lifecyclePart{name: name, stop: stop, early: true})
}

// close stops every part, the last added first, and forgets them: a second close does
// nothing. It returns every part's error, named.
func (l *lifecycle) close() error {
	parts := l.parts
	l.parts = nil
	early := map[int]chan error{}
	for i, p := range parts {
		if p.early {
			done := make(chan error, 1)
			go func() { done <- p.stop() }()
			early[i] = done
		}
	}
	var errs []error
	for i := len(parts) - 1; i >= 0; i-- {
		var err error
		if done, ok := early[i]; ok {
			err = <-done
		} else {
			err = parts[i].stop()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", parts[i].name, err))
		}
	}
	return errors.Join(errs...)
}
