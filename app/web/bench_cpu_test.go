package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// cpuTimes is CPU time used so far by this process (server and load generator) and
// by the PostgreSQL server of the benchmark, from /proc; zero where /proc cannot be
// read.
type cpuTimes struct{ self, postgres time.Duration }

// clockTick is the unit of /proc/<pid>/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// readCPU reads this process's CPU and that of the PostgreSQL server whose postmaster
// is postmaster: the postmaster, its children, and those of its children that ended.
// Other servers on the machine are not counted.
func readCPU(postmaster int) cpuTimes {
	var c cpuTimes
	c.self = procCPU(os.Getpid(), false)
	if postmaster == 0 {
		return c
	}
	c.postgres = procCPU(postmaster, true)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 1 && f[1] == strconv.Itoa(postmaster) {
			c.postgres += procCPU(pid, false)
		}
	}
	return c
}

// procCPU reads utime+stime of one process, and with children cutime+cstime too.
func procCPU(pid int, children bool) time.Duration {
	fields := statFields(pid)
	if len(fields) < 15 {
		return 0
	}
	last := 12
	if children {
		last = 14
	}
	var ticks int64
	for _, f := range fields[11 : last+1] {
		v, _ := strconv.ParseInt(f, 10, 64)
		ticks += v
	}
	return time.Duration(ticks) * clockTick
}

// statFields are the fields of /proc/<pid>/stat after the command name.
func statFields(pid int) []string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// postmasterOf is the process id of the server pool is connected to; 0 when it runs
// on another machine.
func postmasterOf(tb testing.TB, pool *pgxpool.Pool) int {
	tb.Helper()
	var backend int
	if err := pool.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		tb.Fatal(err)
	}
	f := statFields(backend)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
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
