package report

import (
	"strings"

	"github.com/checkup-dev/checkup/db/taskstate"
)

// StatusExplanation is one sentence on what a status means for the reader, or empty
// when the label says it all.
func StatusExplanation(status taskstate.Status) string {
	switch status {
	case taskstate.Pending:
		return "Waiting for a worker to pick it up; this usually takes a few seconds."
	case taskstate.Partial:
		return "Finished, but some conversations could not be diagnosed; they are left out of the results below."
	case taskstate.InsufficientData:
		return "Too few usable conversations were left after the quality checks to say anything reliable. Upload more conversations and start a new diagnosis."
	case taskstate.Failed:
		return "The diagnosis stopped because of an error."
	case taskstate.Canceled:
		return "Canceled before it finished; whatever was done before is shown below."
	}
	return ""
}

// humanize turns an unknown identifier into words: "some_thing" → "Some thing".
func humanize(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// CategoryLabel is a finding category in words: "user_repeats" → "User repeats".
func CategoryLabel(category string) string { return humanize(category) }

// RiskKindLabel is a risk flag kind in words for people.
func RiskKindLabel(kind string) string {
	switch kind {
	case "personal_data":
		return "Personal data shown by the assistant"
	case "prompt_injection":
		return "Prompt injection or jailbreak attempts"
	case "harmful_content":
		return "Harmful or abusive content"
	case "human_request":
		return "Requests for a human"
	case "refusal":
		return "Refusals by the assistant"
	case "tool_error":
		return "Tool errors"
	}
	return humanize(kind)
}

// FixLocationLabel says where an Action's fix belongs, in words.
func FixLocationLabel(loc string) string {
	switch loc {
	case "prompt":
		return "the agent's prompt"
	case "tool":
		return "a tool"
	case "policy":
		return "a policy"
	case "knowledge":
		return "the knowledge base"
	case "product":
		return "the product"
	}
	return loc
}
