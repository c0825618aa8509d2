package main

import "runtime/debug"

// The garbage collector's defaults when the environment sets neither GOGC nor
// GOMEMLIMIT, which Go reads itself and which then win. The server's live heap stays a
// few tens of MB whatever the task's size, so at Go's GOGC=100 a large diagnosis
// collects every few MB it allocates, for about a seventh of the server's CPU. The heap
// may grow to five times its live data instead, under a soft limit that keeps the
// largest uploads' peak (the CSV rows the parser regroups) within 150 MB of RSS
// (BENCHMARKS.md).
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 120 << 20 // bytes
)

// applyGCDefaults sets the defaults the environment (read through getenv) does not
// set itself.
func applyGCDefaults(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
