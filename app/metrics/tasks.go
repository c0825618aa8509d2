package metrics

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// taskCollector reports the tasks by status and the queue's depth, read with one
// GROUP BY at scrape time: the numbers are the database's, the same whichever
// instance is scraped.
type taskCollector struct {
	pool    *pgxpool.Pool
	stale   pgtype.Interval
	timeout time.Duration
	q       *dbsqlc.Queries
	tasks   *prometheus.Desc
	queue   *prometheus.Desc
}

func newTaskCollector(pool *pgxpool.Pool, stale, timeout time.Duration) *taskCollector {
	return &taskCollector{
		pool: pool, timeout: timeout, q: dbsqlc.New(),
		stale: pgtype.Interval{Microseconds: stale.Microseconds(), Valid: true},
		tasks: prometheus.NewDesc("checkup_tasks", "Tasks in the database by status, every owner's.", []string{"status"}, nil),
		queue: prometheus.NewDesc("checkup_queue_depth",
			"Tasks waiting for a worker: pending, and stale_running (running with a heartbeat older than TASK_STALE_MS: their worker is lost and a takeover is due).",
			[]string{"state"}, nil),
	}
}

func (c *taskCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.tasks
	ch <- c.queue
}

func (c *taskCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	rows, err := c.q.MaintenanceTaskCounts(ctx, c.pool, dbsqlc.MaintenanceTaskCountsParams{Stale: c.stale})
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.tasks, err)
		return
	}
	counts := map[taskstate.Status]int64{}
	var stale int64
	for _, r := range rows {
		counts[r.Status] = r.Tasks
		stale += r.Stale
	}
	// Every status is reported, zeros included, so a series never vanishes when its
	// last task moves on.
	for _, s := range taskstate.Statuses() {
		ch <- prometheus.MustNewConstMetric(c.tasks, prometheus.GaugeValue, float64(counts[s]), string(s))
	}
	ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(counts[taskstate.Pending]), string(taskstate.Pending))
	ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(stale), "stale_running")
}
