package report

import (
	"math"
	"strconv"
)

// Percent formats a share 0..1 as a whole percentage, "<1%" for small non-zero shares.
func Percent(share float64) string {
	p := share * 100
	if p > 0 && p < 1 {
		return "<1%"
	}
	return strconv.Itoa(int(math.Round(p))) + "%"
}

// Score formats a score with at most one decimal.
func Score(f float64) string {
	return strconv.FormatFloat(roundTo(f, 1), 'f', -1, 64)
}

func roundTo(f float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(f*p) / p
}
