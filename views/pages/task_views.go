package pages

import (
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
)

// TaskListView is one page of the owner's tasks, newest first.
type TaskListView struct {
	Tasks    []TaskRow
	OlderURL string    // the next (older) page; empty on the last page
	Paged    bool      // this is not the first page, so link back to the newest
	Now      time.Time // what upload times are shown relative to
}

// TaskRow is one task in the list.
type TaskRow struct {
	Progress       components.Progress
	Title          string
	Conversations  int
	Isolated       int
	CreatedAt      time.Time
	FinishedAt     *time.Time
	SourceFilename string
	Rerun          bool // a re-run of an earlier diagnosis of the same conversations
	// Agent is the name of the owner's agent the diagnosis belongs to, AgentID its id;
	// "" and 0 for none.
	Agent   string
	AgentID int64
	// TopIssue is the finished task's most urgent issue; nil before it finishes or when
	// it found none. Trend is that issue's share over the runs of its title up to it;
	// nil with fewer than two.
	TopIssue *TopIssue
	Trend    *components.Sparkline
}

// TopIssue is a task's most urgent issue, as the task list shows it.
type TopIssue struct {
	Type  string
	Title string
	Share string
}

// TaskView is the task page: the report as stored so far, and the CSRF token its
// forms carry.
type TaskView struct {
	Report           report.Report
	CSRFToken        string
	MinConversations int // the fewest usable conversations a diagnosis needs, said when there were too few
	// CompareOptions are the diagnoses a finished one can be compared with; empty while
	// it runs, or when there are none.
	CompareOptions []CompareOption
	// Reviewed confirms the mark just made or taken back, when htmx swapped the page in
	// for it; nil otherwise.
	Reviewed *ReviewNotice
	// RuleGone holds the clusters the owner marked whose rule has since been removed.
	RuleGone map[int]bool
	// RuleFrom holds the diagnosis the rule that marks a cluster was made on, when it
	// is another one.
	RuleFrom map[int]components.RuleSource
	// RerunOf is the title of the diagnosis a re-run repeats, "" when it is not a
	// re-run or that diagnosis has been deleted.
	RerunOf string
	// Learning: the task's agent's detector is learning from labels, and this task is
	// scored again when it is done.
	Learning bool
}

// ReviewNotice confirms a mark of expected behaviour: which issue, whether it was marked
// or the mark taken back, and the cluster whose mark an Undo takes back.
type ReviewNotice struct {
	Title  string
	Marked bool // expected now; an issue otherwise
	// Policy: the change was to the policy's mark — the owner said the issue is not
	// expected, or took that back.
	Policy     bool
	ClusterIdx int
	// Reranked: an Action's rank moved (the issue's own Action entered the ranking or
	// left it). Otherwise the ranks are as they were.
	Reranked bool
	// NextInLine: the mark took a ranked Action out, and an issue ranks among the
	// Actions now that did not when they were written (Waiting).
	NextInLine bool
	// NoAction says why an issue now has no Action (NoActionHint); empty when it has one
	// or is expected.
	NoAction string
}

// Sentence says what the review did, as the htmx notice and the plain form's flash
// both say it.
func (n ReviewNotice) Sentence(l *locale.Localizer) string {
	ranks := l.T("review.ranks_same")
	if n.Reranked {
		ranks = l.T("review.reranked")
	}
	var parts []locale.Text
	switch {
	case n.Marked && n.Policy:
		parts = append(parts, locale.Lit(l.T("review.policy_again", "Title", n.Title, "Ranks", ranks)))
	case n.Marked:
		parts = append(parts, locale.Lit(l.T("review.marked", "Title", n.Title, "Ranks", ranks)))
		if n.NextInLine {
			parts = append(parts, locale.Msg("review.next_in_line"))
		}
	case n.Policy:
		parts = append(parts, locale.Lit(l.T("review.not_expected", "Title", n.Title, "Ranks", ranks)))
	default:
		parts = append(parts, locale.Lit(l.T("review.issue_again", "Title", n.Title, "Ranks", ranks)))
	}
	if n.NoAction != "" {
		parts = append(parts, locale.Lit(n.NoAction))
	}
	return l.Text(locale.Sentences(parts...))
}

// Undo is the cluster route under which the notice's Undo takes the change back
// ("expected" or "not-expected"); empty for a take-back, which has none.
func (n ReviewNotice) Undo() string {
	switch {
	case n.Marked && !n.Policy:
		return "expected"
	case n.Policy && !n.Marked:
		return "not-expected"
	}
	return ""
}

// NoActionHint tells the owner, in a sentence or two, why issue c has no Action in this
// diagnosis and how it could get one; empty when it has one or is expected.
func NoActionHint(l *locale.Localizer, c report.Cluster) string {
	if _, long := report.NoActionWords(l, c); long != "" {
		return l.Text(locale.Sentences(locale.Msg("review.no_action"), locale.Lit(long)))
	}
	return ""
}

// Review is what the clusters' forms of expected behaviour need: marks are open once the
// diagnosis has finished.
func (v TaskView) Review() components.Review {
	return components.Review{TaskID: v.Report.Task.ID, CSRFToken: v.CSRFToken, Open: v.Report.Task.Terminal, RuleGone: v.RuleGone, RuleFrom: v.RuleFrom}
}

// ConversationView is one conversation of a task.
type ConversationView struct {
	TaskID          string
	TaskTitle       string
	Seq             int
	ExternalID      string
	QCStatus        taskstate.QCStatus
	QCReason        string
	DiagnosisStatus taskstate.DiagnosisStatus
	Outcome         string
	Summary         string
	// Labels is its outcome label, where it came from and what the owner said, with the
	// forms that label it; Progress is what its agent has learned from its labels (nil
	// for a task without an agent).
	Labels       LabelState
	Progress     *LabelProgress
	FailureScore *float64 // the diagnosis' estimate that it failed; nil until diagnosed
	FailedTurn   int      // where things first went wrong, 0 when nowhere
	Flags        []report.RiskFlag
	Findings     []report.Finding
	// Standings is the word on each finding's issue, by cluster index; a finding
	// missing from it stands as the analyzer flagged it.
	Standings map[int]Standing
	Turns     []components.Turn
	// List is where the conversation list it was opened from leads; nil when it was
	// opened from elsewhere.
	List *ListNav
}

// ListNav leads from a conversation back to the list it was opened from, as filtered
// and sorted, and on to the next conversation in it.
type ListNav struct {
	URL      string   // the list, at a page that starts with the conversation when Read
	Filtered []string // what the list is restricted to, in words; empty for all
	// Read is set when the list could be read: NextURL is then the next conversation
	// in it, empty after the last. A list query that is not the list's leads back to
	// all conversations, and on to none.
	Read    bool
	NextURL string
}

// Label names the list in the link back to it.
func (n ListNav) Label(l *locale.Localizer) string {
	if len(n.Filtered) == 0 {
		return l.T("conversation.all_conversations")
	}
	filters := make([]locale.Text, len(n.Filtered))
	for i, f := range n.Filtered {
		filters[i] = locale.Lit(f)
	}
	return l.T("conversation.list_of", "Filters", locale.Join("join.semicolon", filters...))
}

// Standing is whose word makes a finding's issue expected behaviour, or an issue
// though the agent's policy seemed to call for it.
type Standing int

// The standings of a finding.
const (
	StandingIssue     Standing = iota // an issue
	StandingPolicy                    // expected: the agent's policy calls for it
	StandingOwner                     // expected: the owner marked it, or a rule of theirs
	StandingOverruled                 // an issue: the owner said the policy does not make it expected
)

// OwnerSpoke reports whether the owner's word (a mark, a rule, an overruled policy)
// stands on any of the conversation's findings: its failure estimate, made as it was
// diagnosed, before the owner's rules are applied to its issues, does not take it in.
func (v ConversationView) OwnerSpoke() bool {
	for _, f := range v.Findings {
		if s := v.StandingOf(f); s == StandingOwner || s == StandingOverruled {
			return true
		}
	}
	return false
}

// StandingOf is the word on f: its issue's, or the analyzer's for a finding in none.
func (v ConversationView) StandingOf(f report.Finding) Standing {
	if f.ClusterIdx != nil {
		if s, ok := v.Standings[*f.ClusterIdx]; ok {
			return s
		}
	}
	if f.Expected {
		return StandingPolicy
	}
	return StandingIssue
}

// Messages builds the turns of a transcript, marking the turns findings quote and
// the risk flags on each turn.
func Messages(msgs []transcript.Message, findings []report.Finding, flags []report.RiskFlag) []components.Turn {
	turns := make([]components.Turn, len(msgs))
	for i, m := range msgs {
		turns[i] = components.Turn{N: i + 1, Message: m}
	}
	for _, f := range findings {
		for _, e := range f.Evidence {
			if e.Turn >= 1 && e.Turn <= len(turns) {
				t := &turns[e.Turn-1]
				t.Evidence = true
				t.Quotes = append(t.Quotes, e.Quote)
			}
		}
	}
	markResults(turns)
	nameResults(turns)
	for _, fl := range flags {
		if fl.Turn >= 1 && fl.Turn <= len(turns) {
			t := &turns[fl.Turn-1]
			t.Flags = append(t.Flags, fl.Kind)
		}
	}
	return turns
}

// markResults marks the tool results that answer a tool call of a quoted turn: the
// quote shows what was asked, the result what came back, so both are opened. Results
// follow their call; without call ids, the results right after the call are its own.
func markResults(turns []components.Turn) {
	for i, t := range turns {
		if !t.Evidence || len(t.Message.ToolCalls) == 0 {
			continue
		}
		ids := map[string]bool{}
		for _, c := range t.Message.ToolCalls {
			ids[c.ID] = true
		}
		for j := i + 1; j < len(turns) && turns[j].Message.Role == transcript.RoleTool; j++ {
			if id := turns[j].Message.ToolCallID; id == "" || ids[id] {
				turns[j].Related = true
			}
		}
	}
}

// nameResults names the tool each result answers: the call with its id, else the
// result's own name, else the one call of the agent's turn before it.
func nameResults(turns []components.Turn) {
	calls := map[string]string{} // call id → tool name, the calls made so far
	var last []transcript.ToolCall
	for i := range turns {
		m := turns[i].Message
		switch m.Role {
		case transcript.RoleAssistant:
			for _, c := range m.ToolCalls {
				calls[c.ID] = c.Name
			}
			if len(m.ToolCalls) > 0 {
				last = m.ToolCalls
			}
		case transcript.RoleTool:
			switch name, ok := calls[m.ToolCallID]; {
			case ok && m.ToolCallID != "":
				turns[i].Tool = name
			case m.Name != "":
				turns[i].Tool = m.Name
			case len(last) == 1:
				turns[i].Tool = last[0].Name
			}
		}
	}
}

// taskAgentPath is the page of the task's agent; "" for a task without one.
func taskAgentPath(t report.Task) string {
	if t.AgentID == nil {
		return ""
	}
	return components.AgentPath(*t.AgentID)
}
