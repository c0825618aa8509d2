package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// NormalizeDiagnosis prepares an analyzer's diagnosis of conv for storage (step 4 of
// docs/architecture.md#pipeline-stages): analyzer.NormalizeDiagnosis fixes its shape
// (enum spelling, ranges, lengths, evidence outside the conversation dropped), a
// finding without a title is titled by its category, and every evidence quote is
// checked against its turn and marked Verified or not — an unverified quote is kept,
// flagged, never silently trusted. What normalisation cannot fix (an unknown outcome or
// finding type) is an error, and the conversation is isolated.
func NormalizeDiagnosis(d analyzer.Diagnosis, conv transcript.Conversation) (analyzer.Diagnosis, error) {
	d = analyzer.NormalizeDiagnosis(d, len(conv.Messages))
	var errs []error
	if !slices.Contains(analyzer.Outcomes(), d.Outcome) {
		errs = append(errs, fmt.Errorf("outcome %q is not one of %s", d.Outcome, strings.Join(analyzer.Outcomes(), ", ")))
	}
	for i := range d.Findings {
		f := &d.Findings[i]
		if f.Type != analyzer.TypeRisk && f.Type != analyzer.TypeAction {
			errs = append(errs, fmt.Errorf("finding %d: type %q is neither RISK nor ACTION", i+1, f.Type))
		}
		if f.Title == "" {
			f.Title = strings.ReplaceAll(f.Category, "_", " ")
		}
		for j := range f.Evidence {
			f.Evidence[j].Verified = VerifyQuote(conv, f.Evidence[j])
			f.Evidence[j].Speaker = speaker(conv, f.Evidence[j])
			f.Evidence[j].Tool = toolOf(conv, f.Evidence[j])
			f.Evidence[j].Continues = continues(conv, f.Evidence[j])
		}
		markSameCalls(conv, f.Evidence)
	}
	if err := errors.Join(errs...); err != nil {
		return d, fmt.Errorf("%w: %w", analyzer.ErrInvalidOutput, err)
	}
	return d, nil
}

// VerifyQuote reports whether e's quote occurs in its turn of conv, as
// analyzer.TurnText renders the turn (content, then tool calls as name(arguments)).
// Both sides are folded first — case, full-width forms, curly quotes and runs of
// whitespace — so a quote that only re-wraps or re-cases the turn's text still counts.
func VerifyQuote(conv transcript.Conversation, e analyzer.Evidence) bool {
	msg, ok := conv.Turn(e.Turn)
	if !ok {
		return false
	}
	quote := strings.TrimSpace(textmatch.FoldString(e.Quote))
	return quote != "" && strings.Contains(textmatch.FoldString(analyzer.TurnText(msg)), quote)
}

// speaker says whose words e quotes: its turn's role, and for an agent's turn whether
// the quote is of its words or of a tool call it made (found past its words in
// analyzer.TurnText). Empty for a turn outside the conversation, or a system prompt.
func speaker(conv transcript.Conversation, e analyzer.Evidence) string {
	msg, ok := conv.Turn(e.Turn)
	if !ok {
		return ""
	}
	switch msg.Role {
	case transcript.RoleUser:
		return analyzer.SpeakerUser
	case transcript.RoleTool:
		return analyzer.SpeakerTool
	case transcript.RoleAssistant:
		quote := strings.TrimSpace(textmatch.FoldString(e.Quote))
		if len(msg.ToolCalls) > 0 && (quote == "" || !strings.Contains(textmatch.FoldString(msg.Content), quote)) {
			return analyzer.SpeakerCall
		}
		return analyzer.SpeakerAgent
	}
	return ""
}

// toolOf names the tool of e once its Speaker is known: for a call, the tool call of
// its turn the quote is part of; for a tool's result, the call it answers (by its id,
// else the message's name, else the one call of the agent's turn before it). Empty
// when none is known.
func toolOf(conv transcript.Conversation, e analyzer.Evidence) string {
	msg, ok := conv.Turn(e.Turn)
	if !ok {
		return ""
	}
	switch e.Speaker {
	case analyzer.SpeakerCall:
		if tc, ok := callOf(msg, e); ok {
			return tc.Name
		}
	case analyzer.SpeakerTool:
		return answeredCall(conv, e.Turn, msg)
	}
	return ""
}

// callOf is the tool call of msg, the agent's turn, that call quote e is part of; the
// turn's one call when the quote is found in none.
func callOf(msg transcript.Message, e analyzer.Evidence) (transcript.ToolCall, bool) {
	quote := strings.TrimSpace(textmatch.FoldString(e.Quote))
	for _, tc := range msg.ToolCalls {
		if strings.Contains(textmatch.FoldString(tc.Name+"("+tc.Arguments+")"), quote) {
			return tc, true
		}
	}
	if len(msg.ToolCalls) == 1 {
		return msg.ToolCalls[0], true
	}
	return transcript.ToolCall{}, false
}

// markSameCalls sets SameAs on each call quote of a finding whose call repeats the
// call of an earlier call quote of it: the same tool with the same arguments, whole
// (analyzer.Evidence.SameAs). A quote cut from long arguments cannot show that the
// two calls are the same; the mark says it.
func markSameCalls(conv transcript.Conversation, evidence []analyzer.Evidence) {
	type quotedCall struct {
		at, turn int // its place in evidence, and its turn
		call     transcript.ToolCall
	}
	var calls []quotedCall
	for i, e := range evidence {
		msg, ok := conv.Turn(e.Turn)
		if !ok || e.Speaker != analyzer.SpeakerCall || !e.Verified {
			continue
		}
		if tc, ok := callOf(msg, e); ok {
			calls = append(calls, quotedCall{i, e.Turn, tc})
		}
	}
	for _, later := range calls {
		e := &evidence[later.at]
		for _, earlier := range calls {
			if earlier.turn < later.turn && (e.SameAs == 0 || earlier.turn < e.SameAs) &&
				earlier.call.Name == later.call.Name && sameArguments(earlier.call.Arguments, later.call.Arguments) {
				e.SameAs = earlier.turn
			}
		}
	}
}

// sameArguments reports whether two calls' arguments are the same: equal as JSON
// values (whatever their spacing or key order), else equal as text.
func sameArguments(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil {
		return reflect.DeepEqual(va, vb)
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// answeredCall is the name of the tool call a tool message at turn answers: the
// earlier call with its id; without an id, its own name, else the one call of the
// nearest agent turn that made calls (none when that turn made several).
func answeredCall(conv transcript.Conversation, turn int, msg transcript.Message) string {
	if msg.ToolCallID == "" && msg.Name != "" {
		return msg.Name
	}
	for t := turn - 1; t >= 1; t-- {
		prev, _ := conv.Turn(t)
		if prev.Role != transcript.RoleAssistant || len(prev.ToolCalls) == 0 {
			continue
		}
		if msg.ToolCallID == "" {
			if len(prev.ToolCalls) == 1 {
				return prev.ToolCalls[0].Name
			}
			return ""
		}
		for _, tc := range prev.ToolCalls {
			if tc.ID == msg.ToolCallID {
				return tc.Name
			}
		}
	}
	return msg.Name
}

// NormalizeAction prepares a written Action for storage: analyzer.NormalizeAction
// fixes its shape; a fixLocation outside the vocabulary, or an Action with no title,
// problem or recommendation, is an error and the cluster's Action fails.
func NormalizeAction(a analyzer.Action) (analyzer.Action, error) {
	a = analyzer.NormalizeAction(a)
	var errs []error
	if !slices.Contains(analyzer.FixLocations(), a.FixLocation) {
		errs = append(errs, fmt.Errorf("fixLocation %q is not one of %s", a.FixLocation, strings.Join(analyzer.FixLocations(), ", ")))
	}
	if a.Title == "" || a.Problem == "" {
		errs = append(errs, errors.New("the title or the problem is empty"))
	}
	if len(a.Recommendation) == 0 {
		errs = append(errs, errors.New("there is no recommendation step"))
	}
	if err := errors.Join(errs...); err != nil {
		return a, fmt.Errorf("%w: %w", analyzer.ErrInvalidOutput, err)
	}
	return a, nil
}

// continues reports whether e, its Speaker set, stops where its turn goes on and the
// cut could pass for the end (analyzer.Evidence.Continues): the user's or the agent's
// words go on after the quote, or a call's or a result's fragment leaves a list or an
// object open. A fragment that closes what it opens (`"cabin": "business"`) is whole.
func continues(conv transcript.Conversation, e analyzer.Evidence) bool {
	msg, ok := conv.Turn(e.Turn)
	if !ok || !e.Verified {
		return false
	}
	switch e.Speaker {
	case analyzer.SpeakerUser, analyzer.SpeakerAgent:
		content, quote := textmatch.FoldString(msg.Content), strings.TrimSpace(textmatch.FoldString(e.Quote))
		at := strings.Index(content, quote)
		return at >= 0 && strings.TrimSpace(content[at+len(quote):]) != ""
	case analyzer.SpeakerCall, analyzer.SpeakerTool:
		_, open := textmatch.Brackets(e.Quote)
		return open > 0
	}
	return false
}
