package offline

import (
	"strconv"

	"github.com/checkup-dev/checkup/db/locale"
)

// facts are what an Action's template is filled with from the cluster itself, so the
// text speaks of the agent's own tools and fields, not of any one domain.
type facts struct {
	example locale.Text // a quoted piece of evidence, or zero
	tools   locale.Text // the tools the cluster's evidence calls ("update_order and refund"), or a generic phrase
	fields  locale.Text // the fields its findings name ("tier"), or a generic phrase
	// noAccount says every finding read was a look-up of nothing the user gave (a
	// catalogue): no account was read.
	noAccount bool
	// retried says every finding read was a change retried with other details after
	// it failed: the user had agreed, to the first details.
	retried bool
	// ownChange says a finding read was refused for a record the agent had itself
	// changed before: the order of its steps is part of the fix.
	ownChange bool
}

// playbook is the template of an Action for one kind of problem. Its words are the
// catalog's messages playbook.<name>.title, .impact and .step1, .step2…
type playbook struct {
	name  string
	fix   string // one of analyzer.FixLocations()
	steps func(name string, f facts) []locale.Text
	// test says the regression-test step is the playbook's own (playbook.<name>.test,
	// which takes the example's place as Ref); false for the default replay-up-to-that-
	// turn test.
	test bool
	// variant names the title and impact that fit what the findings show, when the
	// template has more than one: playbook.<name>.title<variant>; nil or "" for the
	// plain ones.
	variant func(f facts) string
}

func (p playbook) suffix(f facts) string {
	if p.variant == nil {
		return ""
	}
	return p.variant(f)
}

// title is the Action's title; a title may name the cluster's tools and fields.
func (p playbook) title(f facts) locale.Text {
	return locale.Msg("playbook."+p.name+".title"+p.suffix(f), "Tools", f.tools, "Fields", f.fields)
}

func (p playbook) impact(f facts) locale.Text {
	return locale.Msg("playbook." + p.name + ".impact" + p.suffix(f))
}

// when is s if ok, else "".
func when(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// step is step i of playbook name, with its arguments.
func step(name string, i int, args ...any) locale.Text {
	return locale.Msg("playbook."+name+".step"+strconv.Itoa(i), args...)
}

// playbookFor returns the template for a cluster's category; where one category holds
// several offline rules (false_success_claim, tool_error, repetition, unresolved,
// human_handoff, harmful_content) the cluster title picks the variant, so every rule's
// Action has a title of its own. Unknown categories get a generic review template.
func playbookFor(category, title string) playbook {
	switch category {
	case "false_success_claim":
		if title == ruleUnappliedClaim.spec().title {
			return playbook{
				name: "unapplied_claim", fix: "prompt",
				steps: func(p string, f facts) []locale.Text {
					return []locale.Text{
						step(p, 1, "Tools", f.tools, "Fields", f.fields),
						step(p, 2, "Tools", f.tools),
					}
				},
			}
		}
		return playbook{
			name: "false_success", fix: "prompt",
			steps: fixed(2),
		}
	case "unconfirmed_write":
		return playbook{
			name: "unconfirmed_write", fix: "prompt",
			steps: func(p string, f facts) []locale.Text {
				steps := []locale.Text{step(p, 1, "Tools", f.tools), step(p, 2), step(p, 3, "Tools", f.tools)}
				if f.retried {
					// The user agreed to the first details, under a rule the prompt may
					// well have already: that a retry with other details needs a yes of
					// its own is the fix, and the tool layer holds back only such a retry.
					steps = []locale.Text{step(p, 5), step(p, 4)}
				}
				return steps
			},
			variant: func(f facts) string { return when(f.retried, "_retry") },
		}
	case "policy_violation":
		if title == ruleUnauthenticated.spec().title {
			return playbook{
				name: "unauthenticated", fix: "prompt",
				steps: func(p string, f facts) []locale.Text {
					steps := []locale.Text{step(p, 1, "Tools", f.tools), step(p, 2), step(p, 3)}
					if f.noAccount {
						// No account was read: whether such questions may come first
						// is the question to settle; a tool layer refusing every
						// look-up would refuse the catalogue too.
						steps = []locale.Text{steps[2], step(p, 4, "Tools", f.tools)} // the two are alternatives
					}
					return steps
				},
				variant: func(f facts) string { return when(f.noAccount, "_no_account") },
			}
		}
	case "personal_data":
		return playbook{
			name: "personal_data", fix: "policy",
			steps: fixed(3),
		}
	case "prompt_injection":
		return playbook{
			name: "prompt_injection", fix: "prompt",
			steps: fixed(3),
		}
	case "harmful_content":
		if title == ruleAbusiveAgent.spec().title {
			return playbook{
				name: "abusive_agent", fix: "policy",
				steps: fixed(2),
			}
		}
		return playbook{
			name: "abusive_user", fix: "policy",
			steps: fixed(2),
		}
	case "tool_error":
		if title == ruleKeptField.spec().title {
			return playbook{
				name: "kept_field", fix: "tool",
				steps: func(p string, f facts) []locale.Text {
					return []locale.Text{
						step(p, 1, "Tools", f.tools, "Fields", f.fields),
						step(p, 2, "Tools", f.tools, "Fields", f.fields),
					}
				},
			}
		}
		if title == ruleUnapplied.spec().title {
			return playbook{
				name: "unapplied", fix: "tool",
				steps: fixed(2),
			}
		}
		if title == ruleToolRejected.spec().title {
			return playbook{
				name: "tool_rejected", fix: "prompt",
				steps: func(p string, f facts) []locale.Text {
					steps := exampleFirst(3)(p, f)
					if f.ownChange {
						steps = append(steps, step(p, 4))
					}
					return steps
				},
			}
		}
		return playbook{
			name: "tool_error", fix: "tool",
			steps: exampleFirst(3),
		}
	case "repetition":
		if title == ruleRepeatedCall.spec().title {
			return playbook{
				name: "repeated_call", fix: "prompt",
				steps: fixed(2),
			}
		}
		if title == ruleRepeatedMessage.spec().title {
			return playbook{
				name: "repeated_message", fix: "prompt",
				steps: fixed(2),
			}
		}
		return playbook{
			name: "retry", fix: "prompt",
			steps: fixed(2),
		}
	case "user_repeats":
		return playbook{
			name: "user_repeats", fix: "prompt",
			steps: fixed(2),
		}
	case "user_frustration":
		return playbook{
			name: "frustration", fix: "product",
			steps: exampleFirst(3),
		}
	case "unresolved":
		if title == ruleUnanswered.spec().title {
			return playbook{
				name: "unanswered", fix: "product",
				steps: fixed(2),
			}
		}
		return playbook{
			name: "unfinished", fix: "product",
			steps: fixed(3),
		}
	case "human_handoff":
		if title == ruleHumanIgnored.spec().title {
			return playbook{
				name: "human_ignored", fix: "policy",
				steps: fixed(2),
			}
		}
		return playbook{
			name: "handoff", fix: "product",
			steps: fixed(2),
		}
	case "refusal":
		return playbook{
			name: "refusal", fix: "policy",
			steps: fixed(3),
		}
	case "knowledge_gap":
		return playbook{
			name: "knowledge_gap", fix: "knowledge",
			steps: exampleFirst(2),
		}
	case "long_conversation":
		return playbook{
			name: "long", fix: "product",
			steps: fixed(2),
			test:  true,
		}
	}
	return playbook{
		name: "review", fix: "product",
		steps: fixed(1),
	}
}

// fixed returns a steps function of n steps that need none of the cluster's facts.
func fixed(n int) func(string, facts) []locale.Text {
	return func(name string, _ facts) []locale.Text {
		out := make([]locale.Text, n)
		for i := range out {
			out[i] = step(name, i+1)
		}
		return out
	}
}

// exampleFirst returns a steps function of n steps whose first quotes the cluster's
// example (or points at its examples), the others needing none of its facts.
func exampleFirst(n int) func(string, facts) []locale.Text {
	return func(name string, f facts) []locale.Text {
		out := fixed(n)(name, f)
		out[0] = step(name, 1, "Example", orSo(f.example))
		return out
	}
}

// orSo returns the example, or a pointer to the cluster's examples when there is none.
func orSo(example locale.Text) locale.Text {
	if example.IsZero() {
		return locale.Msg("playbook.examples_of_cluster")
	}
	return example
}
