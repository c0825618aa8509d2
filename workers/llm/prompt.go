package llm

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// PromptVersion names the prompt templates under prompts/ and the schemas under
// schemas/. It is stored in each task's config, so a report says which prompts wrote
// it: change it with any change to either.
const PromptVersion = "diagnose-v2/action-v2"

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// The prompt cap (Config.MaxPromptChars): the most characters the messages of one
// request carry, its repair included.
const (
	DefaultMaxPromptChars = 48_000
	// MinMaxPromptChars leaves room for the instructions (with the schema, in
	// json_object mode), the repair and a useful share of a transcript.
	MinMaxPromptChars = 20_000
)

// Limits on what a cluster brief carries into the Action prompt.
const (
	maxBriefDescriptions = 8
	maxBriefExamples     = 10
	// maxIDRunes bounds a conversation id quoted in a prompt.
	maxIDRunes = 200
)

// Limits of a repair call, which repeats the prompt with the rejected answer and what
// is wrong with it. repairReserve is the part of the prompt cap kept free for them, so
// that the repair call too stays under the cap.
const (
	maxRepairAnswerRunes = 4000
	maxRepairProblems    = 20
	maxProblemRunes      = 160
	repairReserve        = maxRepairAnswerRunes + (maxRepairProblems+1)*(maxProblemRunes+3) + 600
)

// prompts renders the messages of each kind of call.
type prompts struct {
	t        *template.Template
	maxChars int
}

func loadPrompts(maxChars int) (*prompts, error) {
	t, err := template.New("prompts").Funcs(template.FuncMap{"join": strings.Join}).
		ParseFS(promptFiles, "prompts/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("llm: prompts: %w", err)
	}
	return &prompts{t: t, maxChars: maxChars}, nil
}

// systemData is what a system prompt may show. Schema is set only in json_object mode,
// where the schema travels in the prompt instead of response_format.
type systemData struct {
	Categories, Outcomes, FixLocations []string
	MaxFindings, MaxEvidence           int
	SchemaName, Schema                 string
	// Language names the language the model is to write in, for a task not written in
	// English; empty for English, the prompts' own language.
	Language string
}

// languageName names each language a task may be written in but English, as the
// prompts ask for it.
func languageName(code string) string {
	if code == locale.Chinese {
		return "Simplified Chinese (简体中文)"
	}
	return ""
}

func newSystemData(s *schema, inline bool, language string) systemData {
	d := systemData{
		Categories:   analyzer.Categories(),
		Outcomes:     analyzer.Outcomes(),
		FixLocations: analyzer.FixLocations(),
		MaxFindings:  analyzer.MaxFindings,
		MaxEvidence:  analyzer.MaxEvidence,
		SchemaName:   s.name,
		Language:     languageName(language),
	}
	if inline {
		d.Schema = string(s.raw)
	}
	return d
}

// diagnoseData is what the diagnosis prompt's user message shows: the policy once, in
// its own block, then the transcript in another. Each block is delimited by markers
// that carry a fence (see fence) its text cannot contain.
type diagnoseData struct {
	ID          string
	Policy      string
	PolicyFence string
	rendered
	Fence string
}

// diagnose returns the messages asking for conv's diagnosis, with what had to be left
// out to keep them under the prompt cap: the transcript is cut first; the policy only
// when it alone would take more than half of the room.
func (p *prompts) diagnose(conv transcript.Conversation, s *schema, inline bool, language string) ([]openai.ChatCompletionMessage, analyzer.Adjustments, error) {
	var adj analyzer.Adjustments
	sys, err := p.render("diagnose_system", newSystemData(s, inline, language))
	if err != nil {
		return nil, adj, err
	}
	policy, policyTurns := policyOf(conv)
	// The frame is measured with the longest values the transcript's part can take.
	data := diagnoseData{
		ID: oneLine(conv.ID, maxIDRunes), PolicyFence: fence(""), Fence: fence(""),
		rendered: rendered{Turns: len(conv.Messages), Omitted: len(conv.Messages)},
	}
	frame, err := p.render("diagnose_user", data)
	if err != nil {
		return nil, adj, err
	}
	room := p.maxChars - runes(sys) - repairReserve - runes(frame)
	if policy != "" {
		data.Policy, adj.CutPolicyChars = cutMiddle(policy, room/2, "policy")
		data.PolicyFence = fence(data.Policy)
		if frame, err = p.render("diagnose_user", data); err != nil {
			return nil, adj, err
		}
	}
	budget := p.maxChars - runes(sys) - repairReserve - runes(frame)
	data.rendered = renderTranscript(conv, policyTurns, budget)
	data.Fence = fence(data.Text)
	adj.OmittedTurns, adj.TotalTurns = data.Omitted, data.Turns
	user, err := p.render("diagnose_user", data)
	if err != nil {
		return nil, adj, err
	}
	return messages(sys, user), adj, nil
}

// actionData is what the Action prompt's user message shows: the cluster's figures,
// then what its findings say, in a fenced block.
type actionData struct {
	analyzer.ClusterBrief
	Fence string
}

// action returns the messages asking for the Action of brief's cluster. The brief is
// bounded (titles, descriptions and quotes are cut by normalisation, their number
// here), so it always fits under the prompt cap.
func (p *prompts) action(brief analyzer.ClusterBrief, s *schema, inline bool, language string) ([]openai.ChatCompletionMessage, error) {
	brief.Title = oneLine(brief.Title, analyzer.MaxTitleRunes)
	descriptions := brief.Descriptions[:min(len(brief.Descriptions), maxBriefDescriptions)]
	brief.Descriptions = make([]string, len(descriptions))
	for i, d := range descriptions {
		brief.Descriptions[i] = oneLine(d, analyzer.MaxDescriptionRunes)
	}
	examples := brief.Examples[:min(len(brief.Examples), maxBriefExamples)]
	brief.Examples = make([]analyzer.Example, len(examples))
	for i, e := range examples {
		e.ConversationID = oneLine(e.ConversationID, maxIDRunes)
		e.FindingTitle = oneLine(e.FindingTitle, analyzer.MaxTitleRunes)
		e.Quote = oneLine(e.Quote, analyzer.MaxQuoteRunes)
		brief.Examples[i] = e
	}
	sys, err := p.render("action_system", newSystemData(s, inline, language))
	if err != nil {
		return nil, err
	}
	data := actionData{ClusterBrief: brief}
	body, err := p.render("action_cluster", data)
	if err != nil {
		return nil, err
	}
	data.Fence = fence(body)
	user, err := p.render("action_user", data)
	if err != nil {
		return nil, err
	}
	return messages(sys, user), nil
}

// repair returns msgs followed by the rejected answer and a request to correct it.
// The answer and the problems are cut to the limits repairReserve keeps room for.
func (p *prompts) repair(msgs []openai.ChatCompletionMessage, answer string, problems []string, s *schema) ([]openai.ChatCompletionMessage, error) {
	if len(problems) > maxRepairProblems {
		more := len(problems) - maxRepairProblems
		problems = append(problems[:maxRepairProblems:maxRepairProblems], fmt.Sprintf("and %d more problems", more))
	}
	cutProblems := make([]string, len(problems))
	for i, pr := range problems {
		cutProblems[i] = oneLine(pr, maxProblemRunes)
	}
	data := struct {
		Problems   []string
		SchemaName string
	}{cutProblems, s.name}
	user, err := p.render("repair_user", data)
	if err != nil {
		return nil, err
	}
	out := append([]openai.ChatCompletionMessage(nil), msgs...)
	return append(out,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: answerText(answer)},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: user},
	), nil
}

// render executes the template name with data.
func (p *prompts) render(name string, data any) (string, error) {
	var b strings.Builder
	if err := p.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("llm: prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// messages is a system and a user message.
func messages(system, user string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: system},
		{Role: openai.ChatMessageRoleUser, Content: user},
	}
}

// fence is the token that delimits a block of data in a prompt: 16 hex digits of the
// block's SHA-256, so that the same policy gets the same markers in every
// conversation (the prompt's opening stays the same, which providers cache) and no
// text can end its own block early, since no text contains its own hash.
func fence(block string) string {
	sum := sha256.Sum256([]byte(block))
	return hex.EncodeToString(sum[:8])
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// answerText is the rejected answer as the repair call repeats it: cut to
// maxRepairAnswerRunes, and never empty, because go-openai drops an empty content and
// some servers refuse an assistant message without one.
func answerText(answer string) string {
	if strings.TrimSpace(answer) == "" {
		return "(empty answer)"
	}
	return cut(answer, maxRepairAnswerRunes)
}
