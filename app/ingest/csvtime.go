package ingest

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// timeLayouts are the date-time forms read from a CSV time column, tried in order.
// Fractional seconds are accepted after the seconds of any of them. Slash dates are read
// month first (01/02/2006 is January 2), as spreadsheets in the US write them. A time
// without a zone is taken as UTC.
func timeLayouts() []string {
	return []string{
		time.RFC3339,
		"2006-01-02T15:04:05",
		"2006-01-02 15:04:05Z07:00",
		"2006-01-02 15:04:05 -0700",
		"2006-01-02 15:04:05 -0700 MST",
		"2006-01-02 15:04:05",
		"2006-01-02 15:04",
		"2006-01-02",
		"2006/01/02 15:04:05",
		"1/2/2006 15:04:05",
		"1/2/2006 15:04",
		time.RFC1123Z,
		time.RFC1123,
	}
}

// parseTime reads a CSV time cell: one of timeLayouts, or a Unix timestamp in seconds,
// milliseconds, microseconds or nanoseconds (told apart by magnitude).
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return unixTime(f), true
	}
	for _, layout := range timeLayouts() {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// unixTime converts a Unix timestamp whose unit is guessed from its size.
func unixTime(f float64) time.Time {
	switch a := math.Abs(f); {
	case a < 1e11:
		sec := math.Floor(f)
		return time.Unix(int64(sec), int64((f-sec)*1e9)).UTC()
	case a < 1e14:
		return time.UnixMilli(int64(f)).UTC()
	case a < 1e17:
		return time.UnixMicro(int64(f)).UTC()
	}
	return time.Unix(0, int64(f)).UTC()
}
