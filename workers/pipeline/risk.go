package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/workers/transcript"
)

// The kinds of risk flag. They are stored with each conversation and shown in the
// risk summary; a flagged conversation is always diagnosed, whatever the budget.
const (
	RiskPersonalData    = "personal_data"    // the assistant showed an email, phone, card, ID or SSN
	RiskPromptInjection = "prompt_injection" // the user tried to override the agent's instructions
	RiskHarmfulContent  = "harmful_content"  // insults or threats, by either side
	RiskHumanRequest    = "human_request"    // the user asked for a person
	RiskRefusal         = "refusal"          // the assistant declined the request
	RiskToolError       = "tool_error"       // a tool answered with an error
)

// RiskKinds returns the risk flag vocabulary in display order.
func RiskKinds() []string {
	return []string{RiskPersonalData, RiskPromptInjection, RiskHarmfulContent, RiskHumanRequest, RiskRefusal, RiskToolError}
}

// quoteRunes caps flag quotes: enough to recognise the turn in a list.
const quoteRunes = 160

// RiskFlag is one deterministic observation about a conversation. Quote is an exact
// substring of the turn's content, except for personal_data, whose quote is the
// matched value with most of it masked (j***@example.com, **** **** **** 4242) so the
// risk summary does not spread the data it warns about. Detail names what was matched
// for personal_data ("payment card number") and is empty otherwise.
type RiskFlag struct {
	Kind   string `json:"kind"`
	Turn   int    `json:"turn"`
	Quote  string `json:"quote"`
	Detail string `json:"detail,omitempty"`
}

// RiskScreener holds the compiled patterns and word lists of risk screening. Build one
// with NewRiskScreener and share it: it is read-only and safe for concurrent use.
type RiskScreener struct {
	pii        []piiDetector
	injection  PhraseSet
	harmful    PhraseSet
	human      PhraseSet
	humanVerb  *regexp.Regexp
	refusal    PhraseSet
	toolError  PhraseSet
	httpStatus *regexp.Regexp
}

// NewRiskScreener compiles the screening rules. The word lists are deliberately short
// and cover English and Chinese alike; they flag conversations for attention, they do
// not judge them.
func NewRiskScreener() *RiskScreener {
	return &RiskScreener{
		pii: newPIIDetectors(),
		injection: NewPhraseSet(
			"ignore previous instructions", "ignore all previous instructions", "ignore the previous instructions",
			"ignore your instructions", "ignore all instructions", "ignore the above", "disregard previous instructions",
			"disregard your instructions", "disregard all previous", "forget your instructions", "forget all previous instructions",
			"you are now dan", "do anything now", "jailbreak", "developer mode", "system prompt",
			"reveal your instructions", "print your instructions", "act as if you have no restrictions", "without any restrictions",
			"忽略之前的指令", "忽略以上指令", "忽略上面的指令", "忽略所有指令", "忽略你的指令", "忽略之前的所有",
			"你现在是一个", "从现在开始你是", "你现在扮演", "系统提示词", "系统提示", "越狱", "开发者模式", "不受任何限制",
		),
		harmful: NewPhraseSet(
			"idiot", "stupid", "moron", "shut up", "kill you", "i will hurt you", "i'll hurt you", "you will regret",
			"白痴", "蠢货", "废物", "去死", "杀了你", "闭嘴", "弄死你",
		),
		human: NewPhraseSet(
			"human agent", "real person", "live agent", "a real human", "customer service representative",
			"supervisor", "higher-up", "escalate", "escalation", "someone else i can", "someone else i could",
			"转人工", "人工客服", "找人工", "人工服务", "真人", "投诉",
		),
		humanVerb: regexp.MustCompile(`\b(?:speak|speaking|talk|talking|connect|transfer)\b[^.?!\n]{0,40}?\b(?:human|agent|representative|manager|supervisor|person|someone)\b`),
		refusal: NewPhraseSet(
			"i'm sorry, but i can't", "i'm sorry, but i cannot", "i am sorry, but i cannot", "i'm sorry, but i'm unable",
			"i cannot help", "i can't help with", "i can't assist", "i cannot assist", "i'm unable to", "i am unable to",
			"i'm not able to", "i am not able to", "i'm not allowed to", "i am not allowed to", "i can't do that", "i cannot do that",
			"无法帮您", "无法为您", "抱歉，我不能", "抱歉，我无法", "很抱歉，我无法", "我不能帮", "不能为您", "无能为力", "爱莫能助",
		),
		toolError: NewPhraseSet(
			"error", "exception", "not found", "failed", "failure", "invalid", "denied", "unauthorized", "forbidden",
			"timed out", "timeout", "unavailable", "traceback",
			"错误", "失败", "异常", "不存在", "未找到", "超时", "无效",
		),
		httpStatus: regexp.MustCompile(`\b(?:http(?:/\d(?:\.\d)?)?|status(?: code)?)[ :=]*[45]\d\d\b|\b[45]\d\d (?:bad request|unauthorized|forbidden|not found|too many requests|internal server error|bad gateway|service unavailable|gateway timeout)\b`),
	}
}

// Screen returns the risk flags of one conversation in turn order: personal data in
// the assistant's words, prompt injection and requests for a human in the user's,
// harmful content from either, refusals by the assistant and tool results that are
// errors. At most one flag per kind and turn (per kind of data for personal_data).
func (s *RiskScreener) Screen(conv transcript.Conversation) []RiskFlag {
	var flags []RiskFlag
	for i, m := range conv.Messages {
		turn := i + 1
		if strings.TrimSpace(m.Content) == "" {
			continue
		}
		switch m.Role {
		case transcript.RoleUser:
			f := Fold(m.Content)
			flags = s.phraseFlag(flags, RiskPromptInjection, turn, f, s.injection)
			flags = s.phraseFlag(flags, RiskHarmfulContent, turn, f, s.harmful)
			if mt, ok := s.findHumanRequest(f); ok {
				flags = append(flags, RiskFlag{Kind: RiskHumanRequest, Turn: turn, Quote: QuoteAround(m.Content, mt.Start, mt.End, quoteRunes)})
			}
		case transcript.RoleAssistant:
			f := Fold(m.Content)
			flags = append(flags, s.screenPII(turn, f)...)
			flags = s.phraseFlag(flags, RiskHarmfulContent, turn, f, s.harmful)
			flags = s.phraseFlag(flags, RiskRefusal, turn, f, s.refusal)
		case transcript.RoleTool:
			if mt, ok := s.findToolError(m.Content); ok {
				flags = append(flags, RiskFlag{Kind: RiskToolError, Turn: turn, Quote: QuoteAround(m.Content, mt.Start, mt.End, quoteRunes)})
			}
		}
	}
	return flags
}

func (s *RiskScreener) phraseFlag(flags []RiskFlag, kind string, turn int, f Folded, ps PhraseSet) []RiskFlag {
	mt, ok := ps.Find(f)
	if !ok {
		return flags
	}
	return append(flags, RiskFlag{Kind: kind, Turn: turn, Quote: QuoteAround(f.Orig, mt.Start, mt.End, quoteRunes)})
}

func (s *RiskScreener) findHumanRequest(f Folded) (Match, bool) {
	mt, ok := s.human.Find(f)
	if !mentionsHumanVerb(f.Text) {
		return mt, ok
	}
	if loc := s.humanVerb.FindStringIndex(f.Text); loc != nil {
		start, end := f.Span(loc[0], loc[1])
		if !ok || start < mt.Start {
			return Match{Start: start, End: end}, true
		}
	}
	return mt, ok
}

// mentionsHumanVerb reports whether folded text has one of the verbs humanVerb starts
// with: without one the expression cannot match, and most turns are spared running it.
func mentionsHumanVerb(text string) bool {
	return strings.Contains(text, "speak") || strings.Contains(text, "talk") ||
		strings.Contains(text, "connect") || strings.Contains(text, "transfer")
}

// findToolError reports whether a tool result reads as an error, with the span that says
// so. A JSON object is an error when it has an "error" or "errors" key, "success":
// false or "status": "error"; other JSON (data) is never an error, so a flight list
// mentioning "invalid" stays clean. Plain text is an error when its first 300
// characters — where tools put a status — contain an error word (EN or ZH) or an HTTP
// 4xx/5xx status; a long document mentioning an error further down is not one.
func (s *RiskScreener) findToolError(content string) (Match, bool) {
	trimmed := strings.TrimSpace(content)
	if trimmed == "" {
		return Match{}, false
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if trimmed[0] == '{' && looksLikeErrorObject(trimmed) {
			start := strings.Index(content, trimmed)
			return Match{Start: start, End: start + len(trimmed), Phrase: "error"}, true
		}
		if json.Valid([]byte(trimmed)) {
			return Match{}, false
		}
	}
	f := Fold(runePrefix(content, 300))
	if loc := s.httpStatus.FindStringIndex(f.Text); loc != nil {
		start, end := f.Span(loc[0], loc[1])
		return Match{Start: start, End: end, Phrase: f.Text[loc[0]:loc[1]]}, true
	}
	return s.toolError.Find(f)
}

// runePrefix returns the first n runes of s.
func runePrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// looksLikeErrorObject checks the top-level keys of a JSON object for an error. It
// parses only objects that mention an error-ish key, keeping large data results cheap.
func looksLikeErrorObject(obj string) bool {
	if !strings.Contains(obj, `"error`) && !strings.Contains(obj, `"success"`) && !strings.Contains(obj, `"status"`) {
		return false
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &top); err != nil {
		return false
	}
	if v, ok := top["error"]; ok && !isJSONEmpty(v) {
		return true
	}
	if v, ok := top["errors"]; ok && !isJSONEmpty(v) {
		return true
	}
	if v, ok := top["success"]; ok && bytes.Equal(bytes.TrimSpace(v), []byte("false")) {
		return true
	}
	if v, ok := top["status"]; ok {
		var st string
		if json.Unmarshal(v, &st) == nil && (strings.EqualFold(st, "error") || strings.EqualFold(st, "failed")) {
			return true
		}
	}
	return false
}

func isJSONEmpty(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "null", "false", `""`, "[]", "{}":
		return true
	}
	return false
}

// SelectForDiagnosis decides which conversations are diagnosed when MAX_DIAGNOSED caps
// the budget. flagged[i] says whether the conversation at position i (its seq in
// upload order) has risk flags. Every flagged conversation is selected — even when
// they alone exceed the budget, because a risk must never go unread to save money —
// and the remaining room is filled with unflagged conversations in the order of
// sha256(taskID + ":" + i): a sample that is deterministic for a task (a resumed or
// taken-over task picks the same ones) and different between tasks. budget <= 0 means
// no cap: everything is selected.
func SelectForDiagnosis(taskID string, flagged []bool, budget int) []bool {
	selected := make([]bool, len(flagged))
	var rest []int
	for i, f := range flagged {
		if f {
			selected[i] = true
		} else {
			rest = append(rest, i)
		}
	}
	room := len(rest)
	if budget > 0 {
		room = min(room, budget-(len(flagged)-len(rest)))
	}
	if room <= 0 {
		return selected
	}
	if room < len(rest) {
		keys := make(map[int][32]byte, len(rest))
		for _, i := range rest {
			keys[i] = sha256.Sum256([]byte(taskID + ":" + strconv.Itoa(i)))
		}
		slices.SortFunc(rest, func(a, b int) int {
			ka, kb := keys[a], keys[b]
			return bytes.Compare(ka[:], kb[:])
		})
	}
	for _, i := range rest[:room] {
		selected[i] = true
	}
	return selected
}
