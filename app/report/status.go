package report

import "strings"

// Terminal reports whether a task in status has finished for good: nothing will
// change it any more, so pages stop polling.
func Terminal(status string) bool {
	switch status {
	case "pending", "running":
		return false
	}
	return true
}

// StatusLabel is a task status in words for people.
func StatusLabel(status string) string {
	switch status {
	case "pending":
		return "Waiting to start"
	case "running":
		return "Running"
	case "completed":
		return "Completed"
	case "partial":
		return "Completed with gaps"
	case "insufficient_data":
		return "Not enough data"
	case "failed":
		return "Failed"
	case "canceled":
		return "Canceled"
	}
	return humanize(status)
}

// StatusExplanation is one sentence on what a status means for the reader, or empty
// when the label says it all.
func StatusExplanation(status string) string {
	switch status {
	case "pending":
		return "Waiting for a worker to pick it up; this usually takes a few seconds."
	case "partial":
		return "Finished, but some conversations could not be diagnosed; they are left out of the results below."
	case "insufficient_data":
		return "Too few usable conversations were left after the quality checks to say anything reliable. Upload more conversations and start a new diagnosis."
	case "failed":
		return "The diagnosis stopped because of an error."
	case "canceled":
		return "Canceled before it finished; whatever was done before is shown below."
	}
	return ""
}

// StageLabel is a pipeline stage (workers/pipeline's Stage names) in words for people.
func StageLabel(stage string) string {
	switch stage {
	case "queued":
		return "Queued"
	case "quality":
		return "Quality checks"
	case "risk":
		return "Risk screening"
	case "diagnosis":
		return "Diagnosing conversations"
	case "clustering":
		return "Grouping findings into issues"
	case "actions":
		return "Writing Actions"
	case "finishing":
		return "Finishing"
	}
	return humanize(stage)
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
