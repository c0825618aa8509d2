package offline

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// maxQuote caps evidence quotes, in runes.
const maxQuote = 200

// maxDescription caps a finding's description, in runes.
const maxDescription = 600

// ruleID names one offline rule. Each rule has one fixed title, so findings of the
// same rule cluster together across conversations.
type ruleID int

// The rules, in the order their findings are listed.
const (
	ruleFalseSuccess ruleID = iota
	ruleUnappliedClaim
	ruleKeptField
	ruleUnconfirmedWrite
	ruleUnauthenticated
	rulePersonalData
	rulePromptInjection
	ruleAbusiveAgent
	ruleAbusiveUser
	ruleToolError
	ruleToolRejected
	ruleUnapplied
	ruleRetryFailing
	ruleRepeatedMessage
	ruleRepeatedCall
	ruleUserRepeats
	ruleFrustration
	ruleUnanswered
	ruleAbandoned
	ruleHandoff
	ruleHumanIgnored
	ruleRefusal
	ruleExpectedRefusal
	ruleExpectedHandoff
	ruleKnowledgeGap
	ruleLong
)

// spec is what a rule's findings share: type, category, title, severity and default
// confidence (the table in the package documentation).
type spec struct {
	typ        analyzer.FindingType
	category   string
	title      string
	severity   int
	confidence float64
}

func (r ruleID) spec() spec {
	risk, action := analyzer.TypeRisk, analyzer.TypeAction
	switch r {
	case ruleFalseSuccess:
		return spec{risk, "false_success_claim", "Agent claims success after a failed tool call", 5, 0.7}
	case ruleUnappliedClaim:
		return spec{risk, "false_success_claim", "Agent confirms a change the tool result does not show", 4, 0.6}
	case ruleKeptField:
		return spec{risk, "tool_error", "Tool takes a change but keeps the old value", 4, 0.8}
	case ruleUnconfirmedWrite:
		return spec{risk, "unconfirmed_write", "Agent changes data without the user's explicit confirmation", 4, 0.6}
	case ruleUnauthenticated:
		return spec{risk, "policy_violation", "Agent acts before verifying the user's identity", 3, 0.7}
	case rulePersonalData:
		return spec{risk, "personal_data", "Agent shows personal data in its reply", 4, 0.6}
	case rulePromptInjection:
		return spec{risk, "prompt_injection", "User tries to override the agent's instructions", 4, 0.7}
	case ruleAbusiveAgent:
		return spec{risk, "harmful_content", "Agent uses abusive language", 5, 0.6}
	case ruleAbusiveUser:
		return spec{risk, "harmful_content", "User is abusive or threatening", 3, 0.6}
	case ruleToolError:
		return spec{action, "tool_error", "Tool call returns an error", 2, 0.9}
	case ruleToolRejected:
		return spec{action, "tool_error", "Tool rejects the agent's call", 2, 0.9}
	case ruleUnapplied:
		return spec{action, "tool_error", "Tool result does not match the requested change", 3, 0.6}
	case ruleRetryFailing:
		return spec{action, "repetition", "Agent retries a failing tool call unchanged", 3, 0.9}
	case ruleRepeatedMessage:
		return spec{action, "repetition", "Agent repeats the same message", 2, 0.8}
	case ruleRepeatedCall:
		return spec{action, "repetition", "Agent repeats a lookup it already made", 2, 0.8}
	case ruleUserRepeats:
		return spec{action, "user_repeats", "User has to repeat or correct their request", 3, 0.6}
	case ruleFrustration:
		return spec{action, "user_frustration", "User expresses frustration", 3, 0.7}
	case ruleUnanswered:
		return spec{action, "unresolved", "Conversation ends without a reply to the user", 4, 0.8}
	case ruleAbandoned:
		return spec{action, "unresolved", "User leaves without the request being completed", 3, 0.6}
	case ruleHandoff:
		return spec{action, "human_handoff", "Conversation is handed off to a human agent", 2, 0.95}
	case ruleHumanIgnored:
		return spec{action, "human_handoff", "User asks for a human but is not transferred", 3, 0.7}
	case ruleRefusal:
		return spec{action, "refusal", "Agent declines the user's request", 2, 0.6}
	case ruleExpectedRefusal:
		return spec{action, "refusal", "Agent says a request cannot be done because its policy rules it out", 1, 0.7}
	case ruleExpectedHandoff:
		return spec{action, "human_handoff", "Agent hands off as its policy says", 1, 0.8}
	case ruleKnowledgeGap:
		return spec{action, "knowledge_gap", "Agent lacks the information to answer", 2, 0.5}
	default: // ruleLong
		return spec{action, "long_conversation", "Conversation is unusually long", 3, 0.8}
	}
}

// expected reports whether r reports behaviour the agent's policy calls for.
func (r ruleID) expected() bool { return r == ruleExpectedRefusal || r == ruleExpectedHandoff }

// titleKey is the catalog message of the rule's title: its English is spec's title,
// the rule's name in every run (findings cluster by it), and a reader of another
// language reads the message in theirs.
func (r ruleID) titleKey() string {
	switch r {
	case ruleFalseSuccess:
		return "rule.false_success"
	case ruleUnappliedClaim:
		return "rule.unapplied_claim"
	case ruleKeptField:
		return "rule.kept_field"
	case ruleUnconfirmedWrite:
		return "rule.unconfirmed_write"
	case ruleUnauthenticated:
		return "rule.unauthenticated"
	case rulePersonalData:
		return "rule.personal_data"
	case rulePromptInjection:
		return "rule.prompt_injection"
	case ruleAbusiveAgent:
		return "rule.abusive_agent"
	case ruleAbusiveUser:
		return "rule.abusive_user"
	case ruleToolError:
		return "rule.tool_error"
	case ruleToolRejected:
		return "rule.tool_rejected"
	case ruleUnapplied:
		return "rule.unapplied"
	case ruleRetryFailing:
		return "rule.retry_failing"
	case ruleRepeatedMessage:
		return "rule.repeated_message"
	case ruleRepeatedCall:
		return "rule.repeated_call"
	case ruleUserRepeats:
		return "rule.user_repeats"
	case ruleFrustration:
		return "rule.frustration"
	case ruleUnanswered:
		return "rule.unanswered"
	case ruleAbandoned:
		return "rule.abandoned"
	case ruleHandoff:
		return "rule.handoff"
	case ruleHumanIgnored:
		return "rule.human_ignored"
	case ruleRefusal:
		return "rule.refusal"
	case ruleExpectedRefusal:
		return "rule.expected_refusal"
	case ruleExpectedHandoff:
		return "rule.expected_handoff"
	case ruleKnowledgeGap:
		return "rule.knowledge_gap"
	default: // ruleLong
		return "rule.long"
	}
}

// finding builds a finding of rule r from its description as a catalog message,
// written in English as the run stores it (v.en) and kept as the message too.
// confidence 0 takes the rule's default.
func (r ruleID) finding(v *view, description locale.Text, confidence float64, evidence ...analyzer.Evidence) analyzer.Finding {
	s := r.spec()
	if confidence == 0 {
		confidence = s.confidence
	}
	return analyzer.Finding{
		Type:          s.typ,
		Category:      s.category,
		Title:         s.title,
		Description:   textmatch.ClipText(v.en.Text(description), maxDescription),
		Words:         &analyzer.Words{Title: locale.Msg(r.titleKey()), Description: description},
		Severity:      s.severity,
		Confidence:    confidence,
		Evidence:      evidence,
		PriorityScore: priority(s.severity, confidence),
	}
}

// fit joins a description's sentences, leaving out the last ones while the English
// would be longer than maxDescription, so a description ends on a whole sentence and
// says the same in every language; the first is always kept.
func (v *view) fit(sentences ...locale.Text) locale.Text {
	for len(sentences) > 1 && utf8.RuneCountInString(v.en.Text(locale.Sentences(sentences...))) > maxDescription {
		sentences = sentences[:len(sentences)-1]
	}
	return locale.Sentences(sentences...)
}

// priority is a finding's priorityScore: severity × confidence scaled to 0–100
// (severity 5 at full confidence is 100), rounded to one decimal.
func priority(severity int, confidence float64) float64 {
	return math.Round(float64(severity)*confidence*20*10) / 10
}

// quoteTurn quotes the opening sentences of a turn's searchable text.
func (v *view) quoteTurn(turn int) analyzer.Evidence {
	return analyzer.Evidence{Turn: turn, Quote: sentenceQuote(analyzer.TurnText(v.msg(turn)), 0, 0, maxQuote)}
}

// quoteMatch quotes the sentence around a match in a turn's content.
func (v *view) quoteMatch(turn int, m textmatch.Match) analyzer.Evidence {
	return analyzer.Evidence{Turn: turn, Quote: sentenceQuote(v.msg(turn).Content, m.Start, m.End, maxQuote)}
}

// widen turns a short quote of a turn (a risk flag's, cut at a fixed width) into the
// sentence around it; a quote not found in the turn is returned as it is.
func (v *view) widen(turn int, quote string) string {
	text := analyzer.TurnText(v.msg(turn))
	i := strings.Index(text, quote)
	if i < 0 || quote == "" {
		return quote
	}
	return sentenceQuote(text, i, i+len(quote), maxQuote)
}

// quoteFlag quotes a risk flag as the sentence around its own quote.
func (v *view) quoteFlag(f risk.Flag) analyzer.Evidence {
	return analyzer.Evidence{Turn: f.Turn, Quote: v.widen(f.Turn, f.Quote)}
}

// quoteCall quotes a tool call as name(arguments), clipped.
func quoteCall(c call) analyzer.Evidence {
	return analyzer.Evidence{Turn: c.turn, Quote: textmatch.ClipQuote(c.text, maxQuote)}
}

// quoteArgs quotes a tool call by its arguments where two calls are shown to be the
// same (the tool is named beside the quote); the whole call, shown by its name, when
// it has none or they are too long to quote whole — a cut pair proves no sameness.
func quoteArgs(c call) analyzer.Evidence {
	if args := strings.TrimSpace(c.args); args != "" && args != "{}" && utf8.RuneCountInString(args) <= maxQuote {
		return analyzer.Evidence{Turn: c.turn, Quote: args}
	}
	return quoteCall(c)
}

// quoteResult quotes the error in a failed call's result.
func quoteResult(c call) analyzer.Evidence {
	return analyzer.Evidence{Turn: c.resultTurn, Quote: c.errQuote}
}
