// Command demo runs Checkup's many-instances drill on one machine (`go tool task
// demo-multi`): three instances of the real binary — web server and embedded worker
// each — on one database, three uploads over HTTP, one instance killed with SIGKILL in
// the middle of its task, and every task still finishing, taken over by another
// instance once its heartbeat is stale. It prints what happens as it happens.
//
// The database is DATABASE_URL when set, otherwise a throwaway private cluster. The
// model is a local fake chat-completions server that answers after a delay, so the
// tasks last long enough to be caught in the middle.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	sample := flag.String("sample", "testdata/airline-100.jsonl", "export to upload, split into three tasks")
	delay := flag.Duration("delay", 150*time.Millisecond, "the fake model's delay per call")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *sample, *delay); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, sample string, delay time.Duration) error {
	parts, err := splitSample(sample, 3)
	if err != nil {
		return err
	}
	say("building the binary")
	d, err := newDemo(ctx, delay)
	if err != nil {
		return err
	}
	defer d.close()

	for _, name := range []string{"a", "b", "c"} {
		if err := d.startInstance(ctx, name); err != nil {
			return err
		}
	}
	for i, part := range parts {
		inst := d.instances[i%len(d.instances)]
		id, err := d.upload(inst, fmt.Sprintf("part-%d.jsonl", i+1), part)
		if err != nil {
			return err
		}
		d.tasks = append(d.tasks, id)
		say("uploaded part %d (%d conversations) to instance %s: task %s", i+1, countLines(part), inst.name, id)
	}

	first := d.tasks[0]
	victim, err := d.waitHolderMidway(ctx, first)
	if err != nil {
		return err
	}
	t, _ := d.task(ctx, first)
	say("killing instance %s (SIGKILL) while it runs task %s at %d/%d", victim.name, short(first), t.ProgressDone, t.ProgressTotal)
	victim.kill()
	killed := time.Now()

	if err := d.watch(ctx, killed); err != nil {
		return err
	}
	d.summary(ctx)
	return nil
}

func say(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}
