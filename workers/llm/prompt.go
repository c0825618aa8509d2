package llm

import (
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/transcript"
)

// PromptVersion names the prompt templates under prompts/ and the schemas under
// schemas/. It is stored in each task's config, so a report says which prompts wrote
// it: change it with any change to either.
const PromptVersion = "diagnose-v1/action-v1"

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// Limits on what a cluster brief carries into the Action prompt.
const (
	maxBriefDescriptions = 8
	maxBriefExamples     = 10
	// maxRepairAnswerRunes bounds the earlier answer sent back in a repair call.
	maxRepairAnswerRunes = 8000
	// maxRepairProblems bounds the validation errors listed in a repair call.
	maxRepairProblems = 20
)

// prompts renders the messages of each kind of call.
type prompts struct {
	t *template.Template
}

func loadPrompts() (*prompts, error) {
	t, err := template.New("prompts").Funcs(template.FuncMap{"join": strings.Join}).
		ParseFS(promptFiles, "prompts/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("llm: prompts: %w", err)
	}
	return &prompts{t: t}, nil
}

// systemData is what a system prompt may show. Schema is set only in json_object mode,
// where the schema travels in the prompt instead of response_format.
type systemData struct {
	Categories, Outcomes, FixLocations []string
	SchemaName, Schema                 string
}

func newSystemData(s *schema, inline bool) systemData {
	d := systemData{
		Categories:   analyzer.Categories(),
		Outcomes:     analyzer.Outcomes(),
		FixLocations: analyzer.FixLocations(),
		SchemaName:   s.name,
	}
	if inline {
		d.Schema = string(s.raw)
	}
	return d
}

// diagnose returns the messages asking for conv's diagnosis.
func (p *prompts) diagnose(conv transcript.Conversation, s *schema, inline bool) ([]openai.ChatCompletionMessage, error) {
	r := renderTranscript(conv)
	user := struct {
		ID string
		rendered
	}{conv.ID, r}
	return p.pair("diagnose", newSystemData(s, inline), user)
}

// action returns the messages asking for the Action of brief's cluster.
func (p *prompts) action(brief analyzer.ClusterBrief, s *schema, inline bool) ([]openai.ChatCompletionMessage, error) {
	descriptions := brief.Descriptions[:min(len(brief.Descriptions), maxBriefDescriptions)]
	brief.Descriptions = make([]string, len(descriptions))
	for i, d := range descriptions {
		brief.Descriptions[i] = cut(d, analyzer.MaxDescriptionRunes)
	}
	examples := brief.Examples[:min(len(brief.Examples), maxBriefExamples)]
	brief.Examples = make([]analyzer.Example, len(examples))
	for i, e := range examples {
		e.Quote = cut(e.Quote, analyzer.MaxQuoteRunes)
		brief.Examples[i] = e
	}
	return p.pair("action", newSystemData(s, inline), brief)
}

// repair returns msgs followed by the rejected answer and a request to correct it.
func (p *prompts) repair(msgs []openai.ChatCompletionMessage, answer string, problems []string, s *schema) ([]openai.ChatCompletionMessage, error) {
	if len(problems) > maxRepairProblems {
		more := len(problems) - maxRepairProblems
		problems = append(problems[:maxRepairProblems:maxRepairProblems], fmt.Sprintf("and %d more problems", more))
	}
	var b strings.Builder
	data := struct {
		Problems   []string
		SchemaName string
	}{problems, s.name}
	if err := p.t.ExecuteTemplate(&b, "repair_user", data); err != nil {
		return nil, fmt.Errorf("llm: prompt repair: %w", err)
	}
	out := append([]openai.ChatCompletionMessage(nil), msgs...)
	return append(out,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: answerText(answer)},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: b.String()},
	), nil
}

// pair renders the templates NAME_system and NAME_user into a system and a user message.
func (p *prompts) pair(name string, system, user any) ([]openai.ChatCompletionMessage, error) {
	var sys, usr strings.Builder
	if err := p.t.ExecuteTemplate(&sys, name+"_system", system); err != nil {
		return nil, fmt.Errorf("llm: prompt %s: %w", name, err)
	}
	if err := p.t.ExecuteTemplate(&usr, name+"_user", user); err != nil {
		return nil, fmt.Errorf("llm: prompt %s: %w", name, err)
	}
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: sys.String()},
		{Role: openai.ChatMessageRoleUser, Content: usr.String()},
	}, nil
}

// answerText is the rejected answer as the repair call repeats it: cut to
// maxRepairAnswerRunes, and never empty, because go-openai drops an empty content and
// some servers refuse an assistant message without one.
func answerText(answer string) string {
	if strings.TrimSpace(answer) == "" {
		return "(empty answer)"
	}
	return cut(answer, maxRepairAnswerRunes)
}
