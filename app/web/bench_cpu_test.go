package web_test

import (
	"os"
	"testing"
	"time"

	"github.com/checkup-dev/checkup/app/apptest"
)

// cpuTimes is CPU time used so far by this process (server and load generator) and
// by the PostgreSQL server of the benchmark, from /proc; zero where /proc cannot be
// read.
type cpuTimes struct{ self, postgres time.Duration }

// readCPU reads this process's CPU and that of the PostgreSQL server whose postmaster
// is postmaster.
func readCPU(postmaster int) cpuTimes {
	return cpuTimes{self: apptest.ProcessCPU(os.Getpid(), false), postgres: apptest.PostgresCPU(postmaster)}
}

// reportCPU adds the CPU each request cost: in this process (the server and the load
// generator together) and in PostgreSQL. Unlike rates and latencies, these barely
// depend on what else the machine is running.
func reportCPU(b *testing.B, before, after cpuTimes, requests int) {
	b.Helper()
	if requests == 0 || after.self == 0 {
		return
	}
	b.ReportMetric(float64((after.self-before.self).Microseconds())/float64(requests), "go-cpu-us/req")
	b.ReportMetric(float64((after.postgres-before.postgres).Microseconds())/float64(requests), "pg-cpu-us/req")
}
