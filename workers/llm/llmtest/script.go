package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Reply is what the server does with one request. The zero Reply answers 200 with
// empty content; the helpers below build the common cases.
type Reply struct {
	// Content is the assistant message on 200, the error message otherwise.
	Content string
	// Status is the HTTP status; 0 means 200.
	Status int
	// RetryAfter, when set, is sent as the Retry-After header (seconds or HTTP-date).
	RetryAfter string
	// Delay holds the answer back; the wait ends early, unanswered, when the client
	// goes away or the server closes.
	Delay time.Duration
	// Until, when set, holds the answer until it is closed, then Delay runs; the wait
	// ends early, unanswered, as Delay's does. Tests release held calls with it.
	Until <-chan struct{}
	// Hang never answers: the handler blocks until the client goes away or the
	// server closes.
	Hang bool
	// FinishReason defaults to "stop".
	FinishReason string
}

// Valid answers with a valid diagnosis or Action, whichever req asks for (see
// Request.Schema). The diagnosis has one ACTION finding whose evidence quotes the first
// line of a real turn of the rendered transcript: the first tool error when there is
// one, else the first user turn. Turn numbers and quotes therefore verify against the
// original conversation.
func Valid(req Request) Reply { return Reply{Content: validJSON(req)} }

// Fenced wraps a valid answer in a Markdown code fence, as chat models often do.
func Fenced(req Request) Reply {
	return Reply{Content: "```json\n" + validJSON(req) + "\n```"}
}

// WithProse puts sentences before and after a valid answer.
func WithProse(req Request) Reply {
	return Reply{Content: "Here is my assessment of the conversation.\n\n" + validJSON(req) +
		"\n\nLet me know if you need more detail."}
}

// Misspelled answers with enum words in the wrong case or spacing ("action",
// "Tool Error", "Resolved", "Prompt") and numbers out of range: all of it fixable by
// normalisation, none of it needing a repair.
func Misspelled(req Request) Reply {
	if req.Schema() == "action" {
		a := validAction()
		a.FixLocation = "Prompt"
		return Reply{Content: mustJSON(a)}
	}
	d := validDiagnosis(req)
	d.Outcome = "Resolved"
	for i := range d.Findings {
		f := &d.Findings[i]
		f.Type = strings.ToLower(f.Type)
		f.Category = strings.ReplaceAll(strings.ToUpper(f.Category[:1])+f.Category[1:], "_", " ")
		f.Severity, f.Confidence, f.PriorityScore = 7, 1.5, 140
	}
	return Reply{Content: mustJSON(d)}
}

// WrongEnums answers with values outside the vocabularies (type "BUG", outcome
// "great", fixLocation "database") that normalisation cannot fix.
func WrongEnums(req Request) Reply {
	if req.Schema() == "action" {
		a := validAction()
		a.FixLocation = "database"
		return Reply{Content: mustJSON(a)}
	}
	d := validDiagnosis(req)
	d.Outcome = "great"
	for i := range d.Findings {
		d.Findings[i].Type = "BUG"
	}
	return Reply{Content: mustJSON(d)}
}

// InvalidJSON answers with prose and no JSON at all.
func InvalidJSON() Reply {
	return Reply{Content: "The conversation went fine overall; I see nothing to report."}
}

// Truncated answers with the first half of a valid answer and finish_reason
// "length", as a model does when it runs out of output tokens.
func Truncated(req Request) Reply {
	c := validJSON(req)
	return Reply{Content: c[:len(c)/2], FinishReason: "length"}
}

// RateLimited answers 429 with the given Retry-After value.
func RateLimited(retryAfter string) Reply {
	return Reply{Status: http.StatusTooManyRequests, RetryAfter: retryAfter, Content: "rate limit reached"}
}

// ServerError answers 500.
func ServerError() Reply {
	return Reply{Status: http.StatusInternalServerError, Content: "the server had an error"}
}

// Hang never answers.
func Hang() Reply { return Reply{Hang: true} }

// The answer shapes as a model writes them (no "verified": that is the pipeline's).
type (
	diagnosis struct {
		Outcome      string    `json:"outcome"`
		Summary      string    `json:"summary"`
		Findings     []finding `json:"findings"`
		FailureScore float64   `json:"failureScore"`
		FailedTurn   int       `json:"failedTurn"`
	}
	finding struct {
		Type          string     `json:"type"`
		Category      string     `json:"category"`
		Title         string     `json:"title"`
		Description   string     `json:"description"`
		Severity      int        `json:"severity"`
		Confidence    float64    `json:"confidence"`
		Evidence      []evidence `json:"evidence"`
		PriorityScore float64    `json:"priorityScore"`
		Expected      bool       `json:"expected"`
		Policy        string     `json:"policy"`
	}
	evidence struct {
		Turn  int    `json:"turn"`
		Quote string `json:"quote"`
	}
	action struct {
		Title          string   `json:"title"`
		Problem        string   `json:"problem"`
		Recommendation []string `json:"recommendation"`
		ExpectedImpact string   `json:"expectedImpact"`
		FixLocation    string   `json:"fixLocation"`
	}
)

func validJSON(req Request) string {
	if req.Schema() == "action" {
		return mustJSON(validAction())
	}
	return mustJSON(validDiagnosis(req))
}

func validDiagnosis(req Request) diagnosis {
	d := diagnosis{Outcome: "resolved", Summary: "The agent handled the request.", Findings: []finding{}, FailureScore: 0.2}
	for _, pick := range []struct {
		ok              func(Turn) bool
		category, title string
	}{
		{func(t Turn) bool { return t.Role == "tool" && strings.HasPrefix(t.Text, "Error") }, "tool_error", "Tool call failed"},
		{func(t Turn) bool { return t.Role == "user" }, "other", "Request needs a closer look"},
	} {
		for _, t := range req.Turns() {
			quote := firstLine(t.Text, 80)
			if !pick.ok(t) || quote == "" {
				continue
			}
			d.Findings = append(d.Findings, finding{
				Type: "ACTION", Category: pick.category, Title: pick.title,
				Description: "The conversation says: " + quote,
				Severity:    3, Confidence: 0.8, PriorityScore: 50,
				Evidence: []evidence{{Turn: t.N, Quote: quote}},
			})
			return d
		}
	}
	return d
}

func validAction() action {
	return action{
		Title:          "Confirm before changing a booking",
		Problem:        "The agent changes bookings without the user's explicit confirmation.",
		Recommendation: []string{"List the change and ask for a yes.", "Refuse to call a write tool without it."},
		ExpectedImpact: "Fewer unwanted changes.",
		FixLocation:    "prompt",
	}
}

// firstLine returns the trimmed first line of s, cut to at most n runes.
func firstLine(s string, n int) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(textmatch.Prefix(line, n))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v) // cannot fail: structs of strings, ints and finite floats
	return string(b)
}
