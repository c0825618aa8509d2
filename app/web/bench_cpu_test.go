package web_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTimes is CPU time used so far by this process (server and load generator) and
// by all PostgreSQL processes, from /proc; zero where /proc cannot be read.
type cpuTimes struct{ self, postgres time.Duration }

// clockTick is the unit of /proc/<pid>/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func readCPU() cpuTimes {
	var c cpuTimes
	c.self, _ = procCPU("/proc/self/stat")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		comm, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if t, ok := procCPU(filepath.Join(d, "stat")); ok {
			c.postgres += t
		}
	}
	return c
}

// procCPU reads utime+stime of one process.
func procCPU(path string) (time.Duration, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// reportCPU adds the CPU each request cost: in this process (the server and the load
// generator together) and in PostgreSQL. Unlike rates and latencies, these barely
// depend on what else the machine is running. PostgreSQL processes that ended during
// the run are not counted.
func reportCPU(b *testing.B, before, after cpuTimes, requests int) {
	b.Helper()
	if requests == 0 || after.self == 0 {
		return
	}
	b.ReportMetric(float64((after.self-before.self).Microseconds())/float64(requests), "go-cpu-us/req")
	b.ReportMetric(float64((after.postgres-before.postgres).Microseconds())/float64(requests), "pg-cpu-us/req")
}
