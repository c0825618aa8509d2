// Package agent tells which of an owner's agents a new run belongs to. An agent is what
// a failure detector learns about: its runs share a policy (the system prompt), so an
// upload that does not name its agent joins the one whose prompt it shares most of its
// words with, and otherwise starts an agent of its own.
package agent

import "github.com/checkup-dev/checkup/workers/textmatch"

// SameAgentWords is the share of their distinct words (Jaccard) two system prompts of
// one agent keep in common at least: an edited prompt keeps most of its words, while
// the prompts of two agents share little beyond the words every prompt uses (the
// policies of an airline's and a retailer's support agent share about a third).
const SameAgentWords = 0.5

// Known is one of the owner's agents, with the system prompt of its latest run.
type Known struct {
	Name         string
	SystemPrompt string
}

// Choose names the agent of a new run: the name given, when there is one; else the
// known agent whose system prompt shares the most words with the run's, when that is at
// least SameAgentWords (the first of equals); else a new agent named after the run's
// title. A run without a system prompt matches no prompt, so it goes by its title.
func Choose(given, systemPrompt, title string, known []Known) string {
	if given != "" {
		return given
	}
	best, bestShare := "", 0.0
	run := words(systemPrompt)
	for _, k := range known {
		if share := jaccard(run, words(k.SystemPrompt)); share >= SameAgentWords && share > bestShare {
			best, bestShare = k.Name, share
		}
	}
	if best != "" {
		return best
	}
	return title
}

// PromptShare is the share of their distinct words two system prompts have in common
// (Jaccard), 0 when either is empty.
func PromptShare(a, b string) float64 { return jaccard(words(a), words(b)) }

func words(s string) map[string]bool {
	set := map[string]bool{}
	for t := range textmatch.EachTerm(s) {
		if !set[t] {
			set[string([]byte(t))] = true
		}
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return float64(shared) / float64(len(a)+len(b)-shared)
}
