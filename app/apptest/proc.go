package apptest

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

// clockTick is the unit of /proc/<pid>/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// ProcessCPU is the CPU time process pid has used so far (utime + stime) and, with
// children, that of its children that have ended (cutime + cstime); zero where /proc
// cannot be read. Benchmarks report it per request: unlike rates and latencies, it
// barely depends on what else the machine runs.
func ProcessCPU(pid int, children bool) time.Duration {
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

// PostgresCPU is the CPU time one PostgreSQL server has used so far: its postmaster,
// the children it has, and those that have ended. Other servers on the machine are
// not counted.
func PostgresCPU(postmaster int) time.Duration {
	if postmaster == 0 {
		return 0
	}
	total := ProcessCPU(postmaster, true)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 1 && f[1] == strconv.Itoa(postmaster) {
			total += ProcessCPU(pid, false)
		}
	}
	return total
}

// Postmaster is the process id of the PostgreSQL server pool is connected to; 0 when
// it runs on another machine.
func Postmaster(tb testing.TB, pool *pgxpool.Pool) int {
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

// statFields are the fields of /proc/<pid>/stat after the command name.
func statFields(pid int) []string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}
