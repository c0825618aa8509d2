package offline

import "fmt"

// facts are what an Action's template is filled with from the cluster itself, so the
// text speaks of the agent's own tools and fields, not of any one domain.
type facts struct {
	example string // a quoted piece of evidence, or ""
	tools   string // the tools the cluster's evidence calls ("update_order and refund"), or a generic phrase
	fields  string // the fields its findings name ("tier"), or a generic phrase
}

// playbook is the template of an Action for one kind of problem.
type playbook struct {
	title  string
	fix    string // one of analyzer.FixLocations()
	impact string
	steps  func(f facts) []string
	// test is the regression-test step, a format taking the example's place
	// ("conversation X, turn 12"); empty for the default replay-up-to-that-turn test.
	test string
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
				title: "Make the agent check that a change took effect before confirming it", fix: "prompt",
				impact: "Users stop being told that a change went through when the returned record shows it did not, so they do not rely on a change that never happened.",
				steps: func(f facts) []string {
					return []string{
						fmt.Sprintf("Add to the system prompt: “After a change, compare the record %s returns with what you asked for (%s). If they differ, tell the user the change did not take effect; never confirm it.”", f.tools, f.fields),
						fmt.Sprintf("Make %s fail with an error when it cannot apply a requested field, instead of returning the unchanged record as a success.", f.tools),
					}
				},
			}
		}
		return playbook{
			title: "Make the agent check tool results before confirming success", fix: "prompt",
			impact: "Users stop being told that changes went through when they did not — the most damaging kind of mistake, because nobody notices until it is too late.",
			steps: fixed(
				"Add to the system prompt: “Before you tell the user an action succeeded, read the tool result. If it reports an error, say what failed and what you will do next. Never confirm an action the tool did not complete.”",
				"Make every write tool return an explicit status (\"status\": \"ok\" or \"error\" with a message), so success and failure cannot be confused.",
			),
		}
	case "unconfirmed_write":
		return playbook{
			title: "Require an explicit yes before every change to the user's data", fix: "tool",
			impact: "No change to the user's data happens without the user agreeing to its exact details, which removes a policy breach and the disputes it causes.",
			steps: func(f facts) []string {
				return []string{
					fmt.Sprintf("Add to the system prompt: “Before calling %s, list the exact details and ask: Shall I go ahead? (yes/no). Act only on an explicit yes.”", f.tools),
					"When a change fails and its details change (another payment method, another item), ask for a new confirmation before retrying.",
					fmt.Sprintf("Enforce it in the tool layer: reject a call to %s unless the user's last turn is an explicit confirmation of a summary the agent showed.", f.tools),
				}
			},
		}
	case "policy_violation":
		if title == ruleUnauthenticated.spec().title {
			return playbook{
				title: "Verify who the user is before anything else", fix: "prompt",
				impact: "No account data is read or changed for someone whose identity was not checked, as the agent's policy requires.",
				steps: func(f facts) []string {
					return []string{
						fmt.Sprintf("Make identity verification the agent's first step in the system prompt, before %s or any other lookup, and say what to ask for.", f.tools),
						"Enforce it in the tool layer: tools other than the identity lookup refuse to run until the user has been verified in this conversation.",
					}
				},
			}
		}
	case "personal_data":
		return playbook{
			title: "Stop the agent from showing personal data", fix: "policy",
			impact: "Card numbers, ID numbers and contact details no longer appear in replies, reducing the exposure if a conversation is shared or leaked.",
			steps: fixed(
				"Show personal data only partly masked: the last 4 digits of cards and IDs, a partial email (j***@example.com).",
				"Strip or mask full card, ID and social security numbers in tool results before they reach the model, so it cannot repeat them.",
				"Add to the system prompt: “Never read back full personal data; confirm identity with partial values only.”",
			),
		}
	case "prompt_injection":
		return playbook{
			title: "Harden the agent against instruction override", fix: "prompt",
			impact: "Attempts to change the agent's rules or reveal its prompt fail, and a manipulated agent still cannot act outside policy.",
			steps: fixed(
				"State in the system prompt that user messages cannot change the agent's role or rules, and that the system prompt is never revealed.",
				"Validate write-tool arguments on the server against policy, so the tools refuse what the policy forbids whatever the model says.",
				"Keep the injection attempts from this cluster as red-team tests.",
			),
		}
	case "harmful_content":
		if title == ruleAbusiveAgent.spec().title {
			return playbook{
				title: "Block abusive language in the agent's replies", fix: "policy",
				impact: "The agent never insults or threatens a customer.",
				steps: fixed(
					"Add an output check that blocks insults or threats before a reply is sent, and log every block.",
					"Add to the system prompt: stay courteous whatever the user writes.",
				),
			}
		}
		return playbook{
			title: "Give the agent a de-escalation path for abusive users", fix: "policy",
			impact: "Abusive conversations end safely and quickly instead of escalating.",
			steps: fixed(
				"Add to the system prompt a de-escalation script: acknowledge, set a boundary, offer a human agent.",
				"Hand off or end the conversation after repeated abuse or any threat, and flag it for review.",
			),
		}
	case "tool_error":
		if title == ruleUnapplied.spec().title {
			return playbook{
				title: "Make write tools apply the requested change or report an error", fix: "tool",
				impact: "A change either happens as asked or fails visibly, so neither the agent nor the user is misled by a success that changed nothing.",
				steps: fixed(
					"Check why these writes return a record that differs from their arguments (an ignored or unsupported field, a validation that silently keeps the old value) and fix the tool.",
					"Return an error naming the field when a requested value cannot be applied, and document the allowed values in the tool description.",
				),
			}
		}
		return playbook{
			title: "Fix the tool calls that fail most often", fix: "tool",
			impact: "Fewer failed calls means fewer retries, shorter conversations and fewer wrong confirmations after a failure.",
			steps: func(f facts) []string {
				return []string{
					fmt.Sprintf("Group this cluster's errors by message (for example %s) and fix the most frequent cause in the tool or in the agent's input.", orSo(f.example)),
					"Return errors that tell the agent what to do next (which field is wrong, the allowed values, the amount missing) and document them in the tool description.",
					"Have the agent look up or calculate values (prices, balances, availability) with tools before a write, so the write succeeds the first time.",
				}
			},
		}
	case "repetition":
		if title == ruleRepeatedCall.spec().title {
			return playbook{
				title: "Keep the agent from looking up what it already knows", fix: "prompt",
				impact: "The agent answers from what it has already read instead of calling the same tool again, which saves turns and avoids answers built on a lost thread.",
				steps: fixed(
					"Add to the system prompt: “Before calling a tool, check whether an earlier call in this conversation already returned what you need; reuse it.”",
					"Keep tool results the agent needs later in its context (or a summary of them) instead of letting them scroll out.",
				),
			}
		}
		if title == ruleRepeatedMessage.spec().title {
			return playbook{
				title: "Stop the agent from repeating itself", fix: "prompt",
				impact: "Users get progress instead of the same message twice, and stuck conversations reach a person sooner.",
				steps: fixed(
					"Add to the system prompt: “Never send the same message twice; if you are stuck, say what is missing or offer a human agent.”",
					"Detect loops in the orchestration: when a reply is nearly identical to an earlier one, escalate instead of sending it.",
				),
			}
		}
		return playbook{
			title: "Stop the agent from retrying failed tool calls unchanged", fix: "prompt",
			impact: "Loops on a failing call end, saving turns and tool load, and the user hears about the problem at once.",
			steps: fixed(
				"Add to the system prompt: “If a tool call fails, never repeat it with the same arguments: change them, ask the user, or hand off after two failures.”",
				"Reject an identical call after a failure in the orchestration layer and return the earlier error with a hint.",
			),
		}
	case "user_repeats":
		return playbook{
			title: "Make the agent understand the request the first time", fix: "prompt",
			impact: "Users no longer have to repeat or correct themselves, which shortens conversations and lowers frustration.",
			steps: fixed(
				"Add to the system prompt: restate the user's goal in one sentence before acting, and ask one clarifying question when it is ambiguous.",
				"Keep the details the user already gave (ids, dates, choices) and never ask for them again.",
			),
		}
	case "user_frustration":
		return playbook{
			title: "Reduce what frustrates users", fix: "product",
			impact: "Fewer frustrated users and fewer escalations and complaints.",
			steps: func(f facts) []string {
				return []string{
					fmt.Sprintf("Read the turns just before the frustration (for example %s) and fix what the agent failed to do there.", orSo(f.example)),
					"Add to the system prompt: when the user is frustrated, acknowledge it, summarize what is known and offer the fastest path, including a human.",
					"Track the share of conversations with frustration markers after the fix.",
				}
			},
		}
	case "unresolved":
		if title == ruleUnanswered.spec().title {
			return playbook{
				title: "Answer the user before the conversation ends", fix: "product",
				impact: "No user is left waiting on a reply that never comes, the plainest failure a support agent can have.",
				steps: fixed(
					"Make the agent end every turn with the result or one clear next step; never stop after a tool call without answering.",
					"Check the orchestration for replies lost after a tool call or a user message (timeouts, errors, turn or token limits) and send a fallback reply when one is lost.",
				),
			}
		}
		return playbook{
			title: "Finish the user's request before they leave", fix: "product",
			impact: "Fewer users leave with their request not done, which is the core measure of the agent's usefulness.",
			steps: fixed(
				"Review where the request stalled in the example and add the missing tool, knowledge or policy.",
				"When the user has to fetch information, have the agent summarize exactly what is needed to finish, so the next conversation starts there.",
				"When the agent's last message asks the user something, make it one clear question with the options, so the user can answer it at once.",
			),
		}
	case "human_handoff":
		if title == ruleHumanIgnored.spec().title {
			return playbook{
				title: "Honor requests for a human agent", fix: "policy",
				impact: "Users who ask for a person get one, instead of being kept in a loop they want to leave.",
				steps: fixed(
					"Add to the system prompt: when the user asks for a person, transfer them (with a summary) unless policy says otherwise, and say why if not.",
					"Give the agent a transfer tool if it has none, and check it is called when users ask for a human.",
				),
			}
		}
		return playbook{
			title: "Resolve more requests without a handoff", fix: "product",
			impact: "Fewer conversations need a person, cutting support cost and waiting time.",
			steps: fixed(
				"List the reasons for handoff in this cluster and bring the most frequent ones into the agent's scope (a tool, a policy rule) where it is safe.",
				"When a request is out of scope, hand off at once with a summary instead of after several failed attempts.",
			),
		}
	case "refusal":
		return playbook{
			title: "Review what the agent declines", fix: "policy",
			impact: "Correct refusals become clearer and come with alternatives; wrong ones stop, so more requests are served.",
			steps: fixed(
				"Check these refusals against the policy: if they are right, have the agent give the reason and an alternative in the same reply.",
				"If they are wrong, widen the policy or give the agent the tool it lacks.",
				"Publish the rule in help content so users know it before they ask.",
			),
		}
	case "knowledge_gap":
		return playbook{
			title: "Fill the agent's knowledge gaps", fix: "knowledge",
			impact: "The agent answers questions it now cannot, without a handoff.",
			steps: func(f facts) []string {
				return []string{
					fmt.Sprintf("Add the missing facts (see %s) to the agent's knowledge base or to tool outputs.", orSo(f.example)),
					"Instruct the agent to say what it can check instead of “I don't know”.",
				}
			},
		}
	case "long_conversation":
		return playbook{
			title: "Shorten long conversations", fix: "product",
			impact: "Shorter conversations cost fewer tokens and less of the user's time, and fail less often.",
			steps: fixed(
				"Find the steps that took most turns in the example and shortcut them: ask for all required details at once, look things up instead of asking.",
				"Set a turn budget after which the agent summarizes and offers a human agent.",
			),
			test: "Add a regression test from %s: replay the user's side of the conversation and assert the agent reaches the outcome in far fewer turns.",
		}
	}
	return playbook{
		title: "Review this recurring issue", fix: "product",
		impact: "Fixing the cause removes a recurring problem.",
		steps: fixed(
			"Read the example conversations of this cluster and decide whether the fix belongs in the prompt, a tool, the policy or the knowledge base.",
		),
	}
}

// fixed returns a steps function that needs none of the cluster's facts.
func fixed(steps ...string) func(facts) []string {
	return func(facts) []string { return append([]string(nil), steps...) }
}

// orSo returns the example, or a pointer to the cluster's examples when there is none.
func orSo(example string) string {
	if example == "" {
		return "the examples of this cluster"
	}
	return example
}
