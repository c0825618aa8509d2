// Package offline is the analyzer that needs no model: deterministic rules over the
// transcript, tool calls included, and Action texts written from templates. It is the
// default when no LLM is configured and what tests run against; it returns the same
// shapes as the LLM analyzer and is labelled "offline analysis" wherever it shows.
//
// Findings are RISK when they break a policy or can harm the user, and ACTION when they
// are about product quality. Each rule has a fixed title, so its findings cluster
// together, and a documented severity (1–5) and confidence (0–1):
//
//	rule                               type    category             sev  conf
//	claims success after a failed call RISK    false_success_claim  5    0.7
//	confirms a change the result lacks RISK    false_success_claim  4    0.6
//	takes a change, keeps the old value RISK   tool_error           4    0.8 (the rest of the record changed)
//	writes the user did not agree to   RISK    unconfirmed_write    4    0.6 (2, 0.5 when asked for, details unconfirmed;
//	                                                                        2 when a changed retry failed too)
//	shows personal data                RISK    personal_data        4    0.9 card/ID/SSN, 0.6 email/phone
//	user tries prompt injection        RISK    prompt_injection     4    0.7
//	agent is abusive                   RISK    harmful_content      5    0.6
//	user is abusive                    RISK    harmful_content      3    0.6
//	tool call returns an error         ACTION  tool_error           2    0.9 (1 when recovered, 3 when a write failed unannounced)
//	tool rejects the agent's call      ACTION  tool_error           2    0.9 (as above; every error a call turned down, none a fault)
//	write result contradicts its args  ACTION  tool_error           3    0.6
//	retries a failing call unchanged   ACTION  repetition           3    0.9 (not after a change or when asked)
//	repeats the same message           ACTION  repetition           2    0.8
//	user repeats or corrects           ACTION  user_repeats         3    0.6
//	user is frustrated                 ACTION  user_frustration     3    0.7 (0.85 when twice or more)
//	ends without a reply to the user   ACTION  unresolved           3    0.8
//	user leaves, request not done      ACTION  unresolved           3    0.6 (2, 0.5 when the user defers; 0.5 when only a question is left open)
//	handed off to a human              ACTION  human_handoff        2*   0.95 tool call, 0.7 text
//	asks for a human, not transferred  ACTION  human_handoff        3    0.7
//	agent declines the request         ACTION  refusal              2    0.6
//	agent lacks the information        ACTION  knowledge_gap        2    0.5
//	long, with turns that went nowhere ACTION  long_conversation    3    0.8 (calls: ≥ 2 and ≥ a quarter; length alone: in the score only)
//
//	* 3 after a failed tool call (the agent gave up), 1 after the agent declined the
//	  request (an out-of-scope request passed on as designed).
//
// Each rule gives at most one finding per conversation, citing up to three turns, so a
// cluster's size counts conversations.
// A finding's priorityScore is severity × confidence × 20 (0–100). Every evidence
// quote is an exact substring of analyzer.TurnText of its turn: a tool-call turn is
// quoted as name(arguments). Quotes are at most 200 runes: the whole sentence around
// the marker (and the sentences after it on its line, while they fit), or, when the
// sentence is too long, a cut between words around the marker.
//
// Offline builds on the risk screening (workers/risk) and text matching
// (workers/textmatch) the pipeline uses, so its findings agree with the risk flags; it
// never imports the pipeline it plugs into, which receives it as an analyzer.Analyzer.
package offline

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Options tunes the rules. Zero values take the defaults.
type Options struct {
	// LongTurns is the number of non-system turns above which a conversation is
	// long (default 40: about twenty exchanges, twice a typical support case).
	LongTurns int
}

// Analyzer is the offline analyzer. It holds read-only rules and a cache of parsed
// policies, and is safe for concurrent use.
type Analyzer struct {
	opt      Options
	screen   *risk.Screener
	m        markers
	consent  consentMarkers
	policies *policyCache
	stemmers sync.Pool // of *textmatch.Stemmer: one per diagnosing goroutine at a time
	// en writes the findings and Actions in English, as a run stores them beside their
	// catalog messages; enErr is why the catalogs could not be read, returned by every
	// call (they are embedded, so only a broken build has it).
	en    *locale.Localizer
	enErr error
}

// New builds an offline analyzer.
func New(opt Options) *Analyzer {
	opt.LongTurns = cmp.Or(opt.LongTurns, 40)
	a := &Analyzer{opt: opt, screen: risk.NewScreener(), m: newMarkers(), consent: newConsentMarkers(), policies: newPolicyCache(),
		stemmers: sync.Pool{New: func() any { return new(textmatch.Stemmer) }}}
	words, err := locale.New()
	if err != nil {
		a.enErr = fmt.Errorf("offline: %w", err)
		return a
	}
	a.en = words.English()
	return a
}

// Info names the analyzer in the task's config and the report.
func (a *Analyzer) Info() analyzer.Info {
	return analyzer.Info{Name: "offline", Label: "offline analysis"}
}

// Diagnose applies every rule to one conversation. It never calls out, costs nothing
// (Usage is zero) and is always first-pass valid.
func (a *Analyzer) Diagnose(ctx context.Context, conv transcript.Conversation) (analyzer.Result[analyzer.Diagnosis], error) {
	return a.DiagnoseScreened(ctx, conv, a.screen.Screen(conv))
}

// DiagnoseScreened is Diagnose for a conversation whose risk screen is known already:
// flags are what risk.Screener.Screen found in conv. The pipeline screens every
// conversation in its quality pass, and screening is a fifth of the diagnosis's work.
func (a *Analyzer) DiagnoseScreened(ctx context.Context, conv transcript.Conversation, flags []risk.Flag) (analyzer.Result[analyzer.Diagnosis], error) {
	if err := cmp.Or(ctx.Err(), a.enErr); err != nil {
		return analyzer.Result[analyzer.Diagnosis]{}, fmt.Errorf("offline: diagnose: %w", err)
	}
	stems := a.stemmers.Get().(*textmatch.Stemmer)
	defer a.stemmers.Put(stems)
	v := a.newView(conv, flags, stems)
	handoffTurn, _, _ := a.handoffTurn(v)
	endFindings, end := a.ending(v, handoffTurn > 0)

	var findings []analyzer.Finding
	for _, rule := range []func(*view) []analyzer.Finding{
		a.falseSuccess, a.unappliedWrites, a.unconfirmedWrites, a.unauthenticated, a.personalData, a.injection, a.abuse,
		a.toolErrors, a.retriedFailures, a.repeatedCalls, a.repeatedMessages, a.userRepeats, a.frustration,
	} {
		findings = append(findings, rule(v)...)
	}
	findings = append(findings, endFindings...)
	for _, rule := range []func(*view) []analyzer.Finding{a.handoff, a.refusals, a.knowledgeGaps, a.longConversation} {
		findings = append(findings, rule(v)...)
	}
	if findings == nil {
		findings = []analyzer.Finding{}
	}
	softenAfterPolicy(v, findings)
	out := outcome(handoffTurn > 0, end, findings)
	score := failureScore(findings, a.lengthRisk(v, findings))
	failed := failedTurn(v, findings)
	capCitations(failed, findings)
	sum := summary(v, out, findings)
	return analyzer.Result[analyzer.Diagnosis]{
		Value: analyzer.Diagnosis{
			Outcome: out, Summary: a.en.Text(sum), SummaryWords: &sum, Findings: findings,
			FailureScore: score, FailedTurn: failed,
		},
		Pass: analyzer.PassFirst,
	}, nil
}
