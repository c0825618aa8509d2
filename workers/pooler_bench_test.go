package workers_test

import (
	"testing"
	"time"

	"github.com/checkup-dev/checkup/db/dbtest"
)

// BenchmarkClaimThroughputUnprepared is what sending statements unprepared costs the
// claims (8 claimers claiming and finishing, 100k pending tasks): the prepared
// statements of a direct connection, the same claimers with
// default_query_exec_mode=cache_describe, and those behind Debian's PgBouncer in transaction
// mode (as many servers as claimers), where Checkup switches to that mode by itself. 2 s each in turn, three times.
//
//	go test ./workers -run '^$' -bench ClaimThroughputUnprepared -benchtime 1x
func BenchmarkClaimThroughputUnprepared(b *testing.B) {
	const tasks, claimers, turns, turn = 100_000, 8, 3, 2 * time.Second
	for b.Loop() {
		prepared, unprepared, pooled := setup(b), setup(b), setup(b)
		for _, bd := range []*bundle{prepared, unprepared, pooled} {
			seedTasks(b, bd, tasks)
		}
		unpreparedURL := unprepared.url + "&default_query_exec_mode=cache_describe"
		pooledURL := dbtest.PgBouncer(b, pooled.url, "transaction", claimers)
		preparedPool := claimerPool(b, prepared, claimers)
		unpreparedPool := claimerPool(b, &bundle{url: unpreparedURL}, claimers)
		pooledPool := claimerPool(b, &bundle{url: pooledURL}, claimers)
		var rates [3]float64
		for range turns {
			rates[0] += float64(claimFor(b, prepared, preparedPool, claimers, turn))
			rates[1] += float64(claimFor(b, unprepared, unpreparedPool, claimers, turn))
			rates[2] += float64(claimFor(b, pooled, pooledPool, claimers, turn))
		}
		for i := range rates {
			rates[i] /= (turns * turn).Seconds()
		}
		if rates[0] == 0 || rates[1] == 0 || rates[2] == 0 {
			b.Fatalf("claimed nothing: %v", rates)
		}
		b.ReportMetric(rates[0], "prepared_claims/s")
		b.ReportMetric(rates[1], "unprepared_claims/s")
		b.ReportMetric(rates[2], "pgbouncer_claims/s")
		b.ReportMetric(rates[1]/rates[0], "unprepared-ratio")
		b.ReportMetric(rates[2]/rates[0], "pgbouncer-ratio")
	}
}
