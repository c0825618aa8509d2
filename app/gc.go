package main

import "runtime/debug"

// The garbage collector's defaults when the environment sets neither GOGC nor
// GOMEMLIMIT, which Go reads itself and which then win. The server's live heap stays a
// few tens of MB whatever the task's size, so at Go's GOGC=100 a large diagnosis
// collects every few MB it allocates and spends about a fifth of the server's CPU
// there. Letting the heap grow to five times the live data, under a soft limit that
// keeps the process within its memory budget, saves most of it (BENCHMARKS.md).
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 200 << 20 // bytes
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
