package compare

import (
	"cmp"
	"slices"

	"github.com/checkup-dev/checkup/report"
)

// DriverPair is one failure driver as both runs saw it: the same kind and feature,
// nil where a run does not have it.
type DriverPair struct {
	Kind, Feature     string
	Baseline, Current *report.Driver
}

// Drivers pairs the failure drivers of the two runs by kind and feature: the current
// run's in its order, then those only the baseline had.
func (c Comparison) Drivers() []DriverPair {
	type key struct{ kind, feature string }
	base := map[key]*report.Driver{}
	for i := range c.Baseline.Drivers {
		d := &c.Baseline.Drivers[i]
		base[key{d.Kind, d.Feature}] = d
	}
	var out []DriverPair
	seen := map[key]bool{}
	for i := range c.Current.Drivers {
		d := &c.Current.Drivers[i]
		k := key{d.Kind, d.Feature}
		seen[k] = true
		out = append(out, DriverPair{Kind: d.Kind, Feature: d.Feature, Baseline: base[k], Current: d})
	}
	var gone []DriverPair
	for i := range c.Baseline.Drivers {
		d := &c.Baseline.Drivers[i]
		if !seen[key{d.Kind, d.Feature}] {
			gone = append(gone, DriverPair{Kind: d.Kind, Feature: d.Feature, Baseline: d})
		}
	}
	slices.SortStableFunc(gone, func(x, y DriverPair) int { return cmp.Compare(x.Baseline.QValue, y.Baseline.QValue) })
	return append(out, gone...)
}
