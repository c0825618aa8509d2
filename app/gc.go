package main

import (
	"runtime/debug"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// The garbage collector's defaults for the commands that diagnose (serve and worker),
// each used when the environment leaves GOGC or GOMEMLIMIT unset: Go reads both itself,
// and a value set there wins. The server's live heap stays a few tens of MB whatever
// the task's size, so at Go's GOGC=100 a large diagnosis collects every few MB it
// allocates, for about an eighth of the server's CPU. The heap may grow to five times
// its live data instead, under a soft limit that keeps the largest uploads' peak (the
// CSV rows the parser regroups) within 150 MB of RSS (BENCHMARKS.md). The limit costs
// CPU when the heap reaches it, never memory: GOGC=100 GOMEMLIMIT=off is Go's own
// behaviour.
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 120 << 20 // bytes
	// containerShare is the most of a container's memory limit the soft limit takes,
	// leaving the rest to what Go does not count (the binary, the kernel's buffers) and
	// to the private PostgreSQL cluster when it runs in the same container.
	containerShare = 0.5
)

// applyGCDefaults sets each default whose variable the environment (read through
// getenv) leaves unset.
func applyGCDefaults(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(memlimit.FromCgroup))
	}
}

// memoryLimit is the default soft limit: defaultMemoryLimit, or containerShare of the
// memory limit of the cgroup the process runs in (read by container) when that is less.
func memoryLimit(container func() (uint64, error)) int64 {
	limit := int64(defaultMemoryLimit)
	if c, err := container(); err == nil && c > 0 {
		limit = min(limit, int64(float64(c)*containerShare))
	}
	return limit
}
