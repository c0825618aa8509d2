package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// outage is a run's circuit breaker for the model provider
// (docs/architecture.md#model-provider-outages). A unit whose call failed for the
// provider's sake (analyzer.ErrUnavailable) opens it: no unit calls the model while it
// is open; the first of them probes every Options.ProbeInterval, the others wait, and
// all do their unit again once a probe succeeds. The task stays running meanwhile (the
// worker's heartbeats go on), with provider_down_since on its row for the page. When
// the provider has not answered a unit for Options.OutageMax, waiting ends with a
// providerDownError, which fails the task with that reason; a drain ends it with
// workers.ErrDraining, which hands the task back, and the units not done are done by
// the next attempt.
type outage struct {
	r      *run
	prober analyzer.Prober

	mu sync.Mutex
	// since is when the provider stopped answering units; zero while it answers. A
	// probe that succeeds does not reset it, a unit that succeeds does: a provider that
	// answers probes and fails units still runs out the clock.
	since time.Time
	// back is closed when the breaker closes; nil while it is closed.
	back chan struct{}
	// err is why the last wait ended without the provider; nil when it answered.
	err error
}

// providerDownError ends a task whose provider did not answer for Options.OutageMax.
type providerDownError struct {
	since  time.Time
	waited time.Duration
}

func (e *providerDownError) Error() string {
	return fmt.Sprintf("pipeline: the model provider has not answered since %s (%s)", e.since.UTC().Format(time.RFC3339), e.waited)
}

// sentence is what the task's owner reads.
func (e *providerDownError) sentence() string {
	waited := e.waited.Round(time.Millisecond).String()
	switch m := int(e.waited / time.Minute); {
	case m == 1 && e.waited%time.Minute == 0:
		waited = "1 minute"
	case m > 1 && e.waited%time.Minute == 0:
		waited = fmt.Sprintf("%d minutes", m)
	}
	return fmt.Sprintf("The model provider did not answer from %s for %s (LLM_OUTAGE_MAX_MS), so the diagnosis stopped. Run it again once the provider answers.",
		e.since.UTC().Format("2006-01-02 15:04 UTC"), waited)
}

// newOutage returns the breaker of r; without a prober (an analyzer with no provider)
// an unavailable unit is isolated like any other failed one.
func newOutage(r *run) *outage {
	p, _ := r.p.analyzer.(analyzer.Prober)
	return &outage{r: r, prober: p}
}

// pauses reports whether err is a provider outage this breaker waits out.
func (o *outage) pauses(err error) bool {
	return o.prober != nil && errors.Is(err, analyzer.ErrUnavailable)
}

// wait returns once the breaker is closed: at once while the provider answers. Its
// error ends the unit: the outage lasted too long, the worker drains, or ctx ended.
func (o *outage) wait(ctx context.Context) error {
	o.mu.Lock()
	back := o.back
	o.mu.Unlock()
	if back == nil {
		return nil
	}
	select {
	case <-back:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// down is told by a unit of stage that its call failed for the provider's sake. It
// opens the breaker unless it is open, and returns when the unit may call again (nil)
// or must stop (as wait). The unit that opens the breaker probes until it closes, and
// gets the cost of the probe that succeeded, to count with its own.
func (o *outage) down(ctx context.Context, stage string) (analyzer.Usage, error) {
	o.mu.Lock()
	if o.back != nil {
		o.mu.Unlock()
		return analyzer.Usage{}, o.wait(ctx)
	}
	if o.since.IsZero() {
		o.since = time.Now()
	}
	o.back, o.err = make(chan struct{}), nil
	since := o.since
	o.mu.Unlock()
	usage, err := o.probe(ctx, stage, since)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.err = err
	close(o.back)
	o.back = nil
	return usage, err
}

// answered is told by a unit whose call reached the provider: the outage clock stops.
func (o *outage) answered() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.back == nil {
		o.since = time.Time{}
	}
}

// probe marks the task as waiting since since, then probes every ProbeInterval until a
// probe succeeds, which clears the mark, or OutageMax has passed since since.
func (o *outage) probe(ctx context.Context, stage string, since time.Time) (analyzer.Usage, error) {
	r, opt := o.r, o.r.p.opt
	log := r.lease.Logger()
	deadline := since.Add(opt.OutageMax)
	tooLong := func(err error) error {
		log.Error("model provider unavailable for too long: the task stops", "stage", stage, "since", since, "err", err)
		return &providerDownError{since: since, waited: opt.OutageMax}
	}
	if !time.Now().Before(deadline) {
		return analyzer.Usage{}, tooLong(nil) // it answered probes but never a unit
	}
	log.Warn("model provider unavailable: the task's model calls wait for it", "stage", stage, "since", since)
	if err := o.mark(ctx, &since); err != nil {
		return analyzer.Usage{}, err
	}
	for {
		t := time.NewTimer(max(min(opt.ProbeInterval, time.Until(deadline)), 0))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return analyzer.Usage{}, context.Cause(ctx)
		}
		if r.lease.Draining() {
			return analyzer.Usage{}, workers.ErrDraining
		}
		usage, err := o.prober.Probe(ctx)
		switch {
		case ctx.Err() != nil:
			return usage, context.Cause(ctx)
		case err == nil:
			log.Info("model provider answers again: the task's model calls go on", "stage", stage, "down_for", time.Since(since).Round(time.Millisecond))
			return usage, o.mark(ctx, nil)
		case !time.Now().Before(deadline):
			return usage, tooLong(err)
		}
	}
}

// mark stores since on the task row; nil says the provider answers.
func (o *outage) mark(ctx context.Context, since *time.Time) error {
	r := o.r
	return r.inTx(ctx, "provider state", func(tx pgx.Tx) error {
		_, err := r.q.SetTaskProviderDown(ctx, tx, dbsqlc.SetTaskProviderDownParams{
			Since: since, ID: r.id, OwnerUserID: r.owner, Attempt: r.lease.Task.Attempt,
		})
		return err
	})
}

// throughOutage makes a unit's analyzer call, waiting out provider outages behind o:
// the call is made again once the provider answers. res carries the cost of every try
// and of the probe the unit made. stop, when set, ends the unit unstored, and the
// task with it: the outage lasted too long, the worker drains, or ctx ended.
func throughOutage[T any](ctx context.Context, o *outage, stage string, call func() (analyzer.Result[T], error)) (res analyzer.Result[T], aerr, stop error) {
	var spent analyzer.Usage
	for {
		if stop = o.wait(ctx); stop != nil {
			res.Usage = spent
			return res, nil, stop
		}
		res, aerr = call()
		res.Usage = spent.Add(res.Usage)
		if ctx.Err() != nil || !o.pauses(aerr) {
			if ctx.Err() == nil {
				o.answered()
			}
			return res, aerr, nil
		}
		probes, stop := o.down(ctx, stage)
		spent = res.Usage.Add(probes)
		if stop != nil {
			res.Usage = spent
			return res, aerr, stop
		}
	}
}
