package main

import "runtime/debug"

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
)

// applyGCDefaults sets each default whose variable the environment (read through
// getenv) leaves unset.
func applyGCDefaults(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
