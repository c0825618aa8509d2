package llmtest

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// WithNULs answers validly with U+0000 (written \u0000, as JSON allows) at the start
// of every text field: summary, title, description, quote and policy of a diagnosis;
// title, problem, steps and impact of an Action. NULCount says how many that is.
func WithNULs(req Request) Reply {
	if req.Schema() == "action" {
		a := validAction()
		a.Title, a.Problem, a.ExpectedImpact = nul+a.Title, nul+a.Problem, nul+a.ExpectedImpact
		for i := range a.Recommendation {
			a.Recommendation[i] = nul + a.Recommendation[i]
		}
		return Reply{Content: mustJSON(a)}
	}
	d := validDiagnosis(req)
	d.Summary = nul + d.Summary
	for i := range d.Findings {
		f := &d.Findings[i]
		f.Title, f.Description, f.Policy = nul+f.Title, nul+f.Description, nul+f.Policy
		for j := range f.Evidence {
			f.Evidence[j].Quote = nul + f.Evidence[j].Quote
		}
	}
	return Reply{Content: mustJSON(d)}
}

const nul = "\x00"

// NULCount is the number of U+0000 characters in content.
func NULCount(content string) int { return strings.Count(content, `\u0000`) }

// TooMany answers with 12 findings of 5 evidence items each, beyond the 8 findings
// and 3 items a diagnosis may give.
func TooMany(req Request) Reply {
	d := validDiagnosis(req)
	if len(d.Findings) == 0 {
		return Reply{Content: mustJSON(d)}
	}
	f := d.Findings[0]
	f.Evidence = []evidence{f.Evidence[0], f.Evidence[0], f.Evidence[0], f.Evidence[0], f.Evidence[0]}
	d.Findings = nil
	for i := range 12 {
		g := f
		g.Title = fmt.Sprintf("%s %d", f.Title, i+1)
		d.Findings = append(d.Findings, g)
	}
	return Reply{Content: mustJSON(d)}
}

// PolicyAware answers as a model that judges the agent against its policy: the
// valid diagnosis, with a failureScore and a failedTurn, plus an expected refusal
// whose policy is the first line of the request's policy block (when it has one) and
// whose evidence is the last assistant turn.
func PolicyAware(req Request) Reply {
	d := validDiagnosis(req)
	d.FailureScore = 0.1
	if len(d.Findings) > 0 && d.Findings[0].Category == "tool_error" {
		d.FailureScore, d.FailedTurn = 0.7, d.Findings[0].Evidence[0].Turn
	}
	policy := firstLine(req.Policy(), 200)
	if policy == "" {
		return Reply{Content: mustJSON(d)}
	}
	turns := req.Turns()
	for i := len(turns) - 1; i >= 0; i-- {
		quote := firstLine(turns[i].Text, 60)
		if turns[i].Role != "assistant" || quote == "" {
			continue
		}
		d.Findings = append(d.Findings, finding{
			Type: "ACTION", Category: "refusal", Title: "Agent declines a request the policy forbids",
			Description: "The agent declined, as its policy asks.", Severity: 1, Confidence: 0.9,
			Evidence: []evidence{{Turn: turns[i].N, Quote: quote}}, Expected: true, Policy: policy,
		})
		break
	}
	return Reply{Content: mustJSON(d)}
}

// Problem is one kind of problem NearDuplicates reports, with the titles it uses for
// it: variants of one wording, as a model writes the same problem in different
// conversations.
type Problem struct {
	Type, Category string
	Titles         []string
}

// DuplicateProblems are the four problems NearDuplicates answers with.
func DuplicateProblems() []Problem {
	return []Problem{
		{"ACTION", "tool_error", []string{"Tool error not reported to the user", "Tool error not reported to user", "The tool error is not reported to the user", "Tool errors not reported to the user."}},
		{"ACTION", "repetition", []string{"Agent repeats the same answer", "Agent repeats the same answer.", "The agent repeats the same answer", "Agent repeating the same answers"}},
		{"ACTION", "human_handoff", []string{"Handoff to a human without trying", "Hands off to a human without trying", "Handoff to human without trying first", "handoff to a human without trying"}},
		{"RISK", "unconfirmed_write", []string{"Change made without the user's confirmation", "Change made without user confirmation", "Changes made without the user's confirmation", "A change made without the user's confirmation"}},
	}
}

// NearDuplicates answers every diagnosis with one or two findings of the
// DuplicateProblems, picked and worded by a hash of the conversation id, so that a
// task's findings carry 4 problems under 16 near-duplicate titles, with descriptions
// that differ too. Evidence quotes the first user turn, so it verifies. Actions are
// answered validly.
func NearDuplicates(req Request) Reply {
	if req.Schema() == "action" {
		return Valid(req)
	}
	d := validDiagnosis(req)
	var ev []evidence
	for _, t := range req.Turns() {
		if q := firstLine(t.Text, 80); t.Role == "user" && q != "" {
			ev = []evidence{{Turn: t.N, Quote: q}}
			break
		}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(req.Conversation()))
	sum := int(h.Sum32())
	problems := DuplicateProblems()
	d.Findings = nil
	for k := range 1 + sum%2 {
		p := problems[(sum/2+k)%len(problems)]
		d.Findings = append(d.Findings, finding{
			Type: p.Type, Category: p.Category, Title: p.Titles[(sum/8+k)%len(p.Titles)],
			Description: fmt.Sprintf("In conversation %s: %s.", req.Conversation(), strings.ToLower(p.Titles[0])),
			Severity:    3, Confidence: 0.8, PriorityScore: 50, Evidence: ev,
		})
	}
	return Reply{Content: mustJSON(d)}
}
