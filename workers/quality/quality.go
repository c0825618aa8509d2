// Package quality defines a task's population before any model is called (step 1 of
// docs/architecture.md#pipeline-stages): each conversation is kept or set aside as
// malformed, empty, too short or a duplicate of an earlier one, and the funnel counts
// them with their reasons.
package quality

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Status is the quality-check verdict on one conversation: kept, or the first step of
// the funnel that removed it. It is what task_conversation.qc_status stores.
type Status = taskstate.QCStatus

// The funnel steps, in the order they are applied.
const (
	Malformed = taskstate.QCMalformed // the transcript contradicts itself (see Checker)
	Empty     = taskstate.QCEmpty     // no user or no assistant turn
	TooShort  = taskstate.QCTooShort  // fewer than MinTurns user and assistant turns
	Duplicate = taskstate.QCDuplicate // same normalised content as an earlier conversation
	Kept      = taskstate.QCKept      // part of the analysed population
)

// Options tunes the quality checks. Zero values take the defaults.
type Options struct {
	// MinTurns is the fewest user plus assistant turns a kept conversation has
	// (default 2). An assistant turn counts when it has text or tool calls.
	MinTurns int
	// MaxInvalidArgsShare is the share of tool calls whose arguments may be invalid JSON
	// before the conversation counts as malformed (default 0.5). A few bad calls are
	// kept — they are the agent's mistakes and worth diagnosing; a transcript where
	// most are unreadable is an export problem.
	MaxInvalidArgsShare float64
}

func (o Options) withDefaults() Options {
	o.MinTurns = cmp.Or(o.MinTurns, 2)
	o.MaxInvalidArgsShare = cmp.Or(o.MaxInvalidArgsShare, 0.5)
	return o
}

// Verdict is what quality checks decided about one conversation, stored with it.
// ContentHash is set for every conversation, kept or not.
type Verdict struct {
	Status      Status `json:"status"`
	Reason      string `json:"reason"` // a sentence for people, empty when kept
	ContentHash []byte `json:"content_hash"`
}

// FunnelReason counts the conversations one step removed for one reason. The reason is
// kept by its message key (a reason stored before the keys reads as its words).
type FunnelReason struct {
	Reason locale.Text `json:"reason"`
	Count  int         `json:"count"`
}

// FunnelStep is one step of the population funnel.
type FunnelStep struct {
	Step      string         `json:"step"` // "uploaded", a Status, or "kept"
	Label     string         `json:"label"`
	Removed   int            `json:"removed"`   // conversations this step removed
	Remaining int            `json:"remaining"` // conversations left after it
	Reasons   []FunnelReason `json:"reasons,omitempty"`
}

// Funnel is the population funnel shown on the task page and stored as jsonb on the
// task: uploaded → malformed → empty → too short → duplicate → kept, every step with
// its count and reasons, so the PM sees exactly what was analysed and why the rest was
// not.
type Funnel struct {
	Steps []FunnelStep `json:"steps"`
}

// Uploaded is the number of conversations that entered the funnel.
func (f Funnel) Uploaded() int {
	if len(f.Steps) == 0 {
		return 0
	}
	return f.Steps[0].Remaining
}

// Kept is the size of the analysed population, compared with MIN_CONVERSATIONS.
func (f Funnel) Kept() int {
	if len(f.Steps) == 0 {
		return 0
	}
	return f.Steps[len(f.Steps)-1].Remaining
}

// Checker applies the quality checks to conversations one at a time, so an
// upload of any size can be streamed through it; it keeps only the content hashes of
// kept conversations. Verdicts depend on input order (the first of duplicates is kept)
// and nothing else. Only Examine is safe for concurrent use.
//
// A conversation is malformed when a message has an unknown role, a tool call has no
// name, a tool result answers a tool_call_id no earlier tool call had (or, without an
// id, comes before any tool call), or more than MaxInvalidArgsShare of its tool calls
// have arguments that are not valid JSON.
type Checker struct {
	opt     Options
	first   map[[sha256.Size]byte]string // content hash → name of the kept conversation
	checked int
	removed map[Status]map[string]*FunnelReason // status → generic reason's key → its count
}

// NewChecker starts an empty funnel.
func NewChecker(opt Options) *Checker {
	return &Checker{
		opt:     opt.withDefaults(),
		first:   map[[sha256.Size]byte]string{},
		removed: map[Status]map[string]*FunnelReason{},
	}
}

// Check runs the quality checks over a whole upload held in memory.
func Check(convs []transcript.Conversation, opt Options) ([]Verdict, Funnel) {
	q := NewChecker(opt)
	verdicts := make([]Verdict, len(convs))
	for i, c := range convs {
		verdicts[i] = q.Check(c)
	}
	return verdicts, q.Funnel()
}

// Check decides about the next conversation in upload order.
func (q *Checker) Check(conv transcript.Conversation) Verdict { return q.Decide(q.Examine(conv)) }

// Examined is what the checks find in one conversation on its own, before it is
// compared with the conversations before it.
type Examined struct {
	sum            [sha256.Size]byte
	id             string
	status         Status
	genericReason  locale.Text
	specificReason string
}

// Examine runs the checks that need only conv: most of the work, and safe for
// concurrent use, so a pass can examine conversations in parallel and Decide in order.
func (q *Checker) Examine(conv transcript.Conversation) Examined {
	status, generic, reason := q.classify(conv)
	return Examined{sum: contentHash(conv), id: conv.ID, status: status, genericReason: generic, specificReason: reason}
}

// Decide gives the verdict of the next examined conversation in upload order: the
// first of duplicates is kept.
func (q *Checker) Decide(e Examined) Verdict {
	q.checked++
	v := Verdict{Status: Kept, ContentHash: e.sum[:]}
	status, generic, reason := e.status, e.genericReason, e.specificReason
	if status == Kept {
		if name, dup := q.first[e.sum]; dup {
			status, generic, reason = Duplicate, locale.Msg("quality.duplicate"), "duplicate of "+name
		} else {
			name := "conversation #" + fmt.Sprint(q.checked)
			if e.id != "" {
				name = e.id
			}
			q.first[e.sum] = name
		}
	}
	if status != Kept {
		if q.removed[status] == nil {
			q.removed[status] = map[string]*FunnelReason{}
		}
		key := generic.String()
		if q.removed[status][key] == nil {
			q.removed[status][key] = &FunnelReason{Reason: generic}
		}
		q.removed[status][key].Count++
		v.Status, v.Reason = status, reason
	}
	return v
}

// classify applies the malformed, empty and too-short checks; it returns the status,
// a generic reason for the funnel and a specific one for the conversation.
func (q *Checker) classify(conv transcript.Conversation) (Status, locale.Text, string) {
	if generic, reason := malformed(conv, q.opt.MaxInvalidArgsShare); !generic.IsZero() {
		return Malformed, generic, reason
	}
	users, assistants := 0, 0
	for _, m := range conv.Messages {
		switch {
		case m.Role == transcript.RoleUser && strings.TrimSpace(m.Content) != "":
			users++
		case m.Role == transcript.RoleAssistant && (strings.TrimSpace(m.Content) != "" || len(m.ToolCalls) > 0):
			assistants++
		}
	}
	switch {
	case users == 0:
		return Empty, locale.Msg("quality.no_user"), "the conversation has no user message"
	case assistants == 0:
		return Empty, locale.Msg("quality.no_assistant"), "the conversation has no agent message"
	case users+assistants < q.opt.MinTurns:
		return TooShort, locale.Msg("quality.too_few_turns", "N", q.opt.MinTurns),
			fmt.Sprintf("only %d user or agent turns (minimum %d)", users+assistants, q.opt.MinTurns)
	}
	return Kept, locale.Text{}, ""
}

// malformed returns a generic and a specific reason when the transcript contradicts
// itself, and empty strings when it does not.
func malformed(conv transcript.Conversation, maxInvalidShare float64) (locale.Text, string) {
	ids := map[string]bool{}
	calls, invalid := 0, 0
	for i, m := range conv.Messages {
		turn := i + 1
		if !m.Role.Valid() {
			return locale.Msg("quality.unknown_role"), fmt.Sprintf("turn %d has the unknown role %q", turn, m.Role)
		}
		for _, tc := range m.ToolCalls {
			if strings.TrimSpace(tc.Name) == "" {
				return locale.Msg("quality.unnamed_call"), fmt.Sprintf("a tool call at turn %d has no name", turn)
			}
			calls++
			if args := strings.TrimSpace(tc.Arguments); args != "" && !json.Valid([]byte(args)) {
				invalid++
			}
			if tc.ID != "" {
				ids[tc.ID] = true
			}
		}
		if m.Role != transcript.RoleTool {
			continue
		}
		switch {
		case m.ToolCallID != "" && !ids[m.ToolCallID]:
			return locale.Msg("quality.unknown_call"),
				fmt.Sprintf("the tool result at turn %d answers tool call %q, which no earlier turn made", turn, m.ToolCallID)
		case m.ToolCallID == "" && calls == 0:
			return locale.Msg("quality.result_first"),
				fmt.Sprintf("the tool result at turn %d comes before any tool call", turn)
		}
	}
	if calls > 0 && float64(invalid) > maxInvalidShare*float64(calls) {
		return locale.Msg("quality.invalid_arguments"),
			fmt.Sprintf("%d of %d tool calls have arguments that are not valid JSON", invalid, calls)
	}
	return locale.Text{}, ""
}

// Funnel returns the funnel of everything checked so far.
func (q *Checker) Funnel() Funnel {
	steps := []FunnelStep{{Step: "uploaded", Label: "Uploaded", Remaining: q.checked}}
	remaining := q.checked
	for _, s := range []struct {
		status Status
		label  string
	}{
		{Malformed, "Malformed"},
		{Empty, "Empty"},
		{TooShort, "Too short"},
		{Duplicate, "Duplicate"},
	} {
		step := FunnelStep{Step: string(s.status), Label: s.label}
		for _, r := range q.removed[s.status] {
			step.Removed += r.Count
			step.Reasons = append(step.Reasons, *r)
		}
		sort.Slice(step.Reasons, func(i, j int) bool {
			a, b := step.Reasons[i], step.Reasons[j]
			return a.Count > b.Count || (a.Count == b.Count && a.Reason.String() < b.Reason.String())
		})
		remaining -= step.Removed
		step.Remaining = remaining
		steps = append(steps, step)
	}
	steps = append(steps, FunnelStep{Step: string(Kept), Label: "Kept", Remaining: remaining})
	return Funnel{Steps: steps}
}

// contentHash identifies a conversation's content for duplicate detection: roles,
// whitespace-collapsed case-folded text and tool calls (arguments compacted), in order.
// System prompts are left out — agents share one, and it would make every
// conversation look alike — and so are ids, which exports regenerate. The hashed bytes
// are gathered in one buffer and hashed at once.
func contentHash(conv transcript.Conversation) [sha256.Size]byte {
	size := 0 // what the text takes unfolded: folding rarely makes it longer
	for _, m := range conv.Messages {
		if m.Role != transcript.RoleSystem {
			size += len(m.Role) + len(m.Content) + 2
			for _, tc := range m.ToolCalls {
				size += len(tc.Name) + len(tc.Arguments) + 2
			}
		}
	}
	buf := make([]byte, 0, size)
	var compact bytes.Buffer
	for _, m := range conv.Messages {
		if m.Role == transcript.RoleSystem {
			continue
		}
		buf = append(buf, m.Role...)
		buf = append(buf, 0x1f)
		buf = textmatch.AppendFold(buf, m.Content)
		for _, tc := range m.ToolCalls {
			buf = append(buf, 0x1e)
			buf = append(buf, tc.Name...)
			buf = append(buf, 0x1f)
			compact.Reset()
			if json.Compact(&compact, []byte(tc.Arguments)) == nil {
				buf = append(buf, compact.Bytes()...)
			} else {
				buf = textmatch.AppendFold(buf, tc.Arguments)
			}
		}
		buf = append(buf, 0x1d)
	}
	return sha256.Sum256(buf)
}
