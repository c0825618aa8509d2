// Package percent writes shares for people, one way everywhere: the task page, the
// downloads and the texts the analyzers write all say "6.5%" for 13 of 200 and "1%"
// for 1 of 100, whether the share was computed from counts or read back from a stored
// real.
package percent

import (
	"math"
	"strconv"
)

// Of is n of total as a percentage, as Format writes it; "0%" when total is 0.
func Of(n, total int) string {
	if total <= 0 {
		return "0%"
	}
	return Format(float64(n) / float64(total))
}

// Format writes a share 0..1 as a percentage: whole percents from 10%, one decimal
// below ("6.5%", "1%", "0.3%"), "<0.1%" for a share too small to show and ">99%" for
// one that is not all but would round to it. The share is first rounded to six
// decimals of a percent, so a share stored as a 32-bit real (0.065 reads back as
// 0.0649999976) is written as the exact fraction would be.
func Format(share float64) string {
	p := math.Round(share*1e8) / 1e6
	switch {
	case p <= 0:
		return "0%"
	case p >= 100:
		return "100%"
	case p < 0.05:
		return "<0.1%"
	case p < 9.95:
		return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
	case p >= 99.5:
		return ">99%"
	}
	return strconv.Itoa(int(math.Round(p))) + "%"
}
