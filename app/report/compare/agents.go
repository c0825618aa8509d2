package compare

import (
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// sameAgentWords is the share of their words two system prompts of one agent keep in
// common at least: an edited prompt keeps most of its words, while the prompts of two
// agents share little beyond the words every prompt uses (an airline's and a
// retailer's policy of the sample data share about a third).
const sameAgentWords = 0.5

// DifferentAgents reports whether two runs look like diagnoses of different agents:
// both have a system prompt and the two share fewer than sameAgentWords of their
// distinct words (Jaccard). Without a system prompt on either side it cannot tell and
// says no.
func DifferentAgents(systemA, systemB string) bool {
	a, b := wordSet(systemA), wordSet(systemB)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return float64(shared) < sameAgentWords*float64(len(a)+len(b)-shared)
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range textmatch.Terms(s) {
		set[t] = true
	}
	return set
}
