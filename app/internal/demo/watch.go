package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
)

// waitHolderMidway waits until the task is in the middle of its diagnosis and returns
// the instance running it.
func (d *demo) waitHolderMidway(ctx context.Context, id uuid.UUID) (*instance, error) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		t, err := d.task(ctx, id)
		if err != nil {
			return nil, err
		}
		if inst := d.holderOf(t); inst != nil && t.Stage == "diagnosis" && t.ProgressDone >= 3 && t.ProgressDone < t.ProgressTotal-3 {
			return inst, nil
		}
		if t.FinishedAt != nil {
			return nil, errors.New("the task finished before it could be caught midway: run with a longer -delay")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, errors.New("the task did not reach the middle of its diagnosis")
}

// watch prints every task's state once a second until all have finished.
func (d *demo) watch(ctx context.Context, killed time.Time) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var rows []string
		done := 0
		for _, id := range d.tasks {
			t, err := d.task(ctx, id)
			if err != nil {
				return err
			}
			where := "-"
			if inst := d.holderOf(t); inst != nil {
				where = "instance " + inst.name
			}
			if t.FinishedAt != nil {
				done++
			}
			rows = append(rows, fmt.Sprintf("%s %-10s %-11s %3d/%-3d attempt %d  %s",
				short(id), t.Status, t.Stage, t.ProgressDone, t.ProgressTotal, t.Attempt, where))
		}
		say("%.1f s after the kill:\n               %s", time.Since(killed).Seconds(), strings.Join(rows, "\n               "))
		if done == len(d.tasks) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.New("the tasks did not all finish")
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// summary prints how each task ended.
func (d *demo) summary(ctx context.Context) {
	var alive *instance
	for _, inst := range d.instances {
		if !inst.dead {
			alive = inst
		}
	}
	for _, id := range d.tasks {
		t, err := d.task(ctx, id)
		if err != nil {
			say("task %s: %v", id, err)
			continue
		}
		line := fmt.Sprintf("task %s ended %s after %d attempt(s), its worker lost %d time(s)", short(id), t.Status, t.Attempt, t.LostCount)
		if t.LostCount > 0 {
			line += ": taken over and resumed from its checkpoints"
		}
		say("%s", line)
		r, err := d.report(alive, id)
		if err != nil {
			say("  report.json: %v", err)
			continue
		}
		top := ""
		if len(r.Actions) > 0 {
			top = fmt.Sprintf("; #1 %q", r.Actions[0].Title)
		}
		say("  report.json from instance %s: %d of %d conversations analysed, %d findings, %d Actions ranked 1..%d%s",
			alive.name, r.Population.Analysed, r.Population.Uploaded, len(r.Findings), len(r.Actions), len(r.Actions), top)
	}
	st := d.model.Stats()
	say("the model answered %d calls; every task is finished. Stopping.", st.Requests)
}

// splitSample splits the export's lines into n parts of equal size.
func splitSample(path string, n int) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the sample (run the demo from the repository's root): %w", err)
	}
	var lines [][]byte
	scanner := bufio.NewScanner(bytes.NewReader(b))
	scanner.Buffer(nil, 10<<20)
	for scanner.Scan() {
		lines = append(lines, append([]byte(nil), scanner.Bytes()...))
	}
	per := len(lines) / n
	if per < 10 {
		return nil, fmt.Errorf("%s has %d conversations: the demo needs at least %d", path, len(lines), 10*n)
	}
	parts := make([][]byte, n)
	for i := range parts {
		parts[i] = append(bytes.Join(lines[i*per:(i+1)*per], []byte("\n")), '\n')
	}
	return parts, nil
}

func countLines(b []byte) int { return bytes.Count(b, []byte("\n")) }

func short(id uuid.UUID) string { return id.String()[:8] }
