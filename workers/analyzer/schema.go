package analyzer

import (
	"slices"

	"github.com/checkup-dev/checkup/db/locale"
)

// FindingType separates risks (always reported) from improvement actions (ranked).
type FindingType string

// The two finding types.
const (
	TypeRisk   FindingType = "RISK"
	TypeAction FindingType = "ACTION"
)

// Badge is the type as its badge reads in the reader's language (风险 for RISK); the
// identifier itself, as the downloads keep it, when it is neither type.
func (t FindingType) Badge() locale.Text {
	switch t {
	case TypeRisk:
		return locale.Msg("badge.risk")
	case TypeAction:
		return locale.Msg("badge.action")
	}
	return locale.Lit(string(t))
}

// Categories is the fixed vocabulary a finding's category must come from. The
// vocabularies are functions returning a fresh slice, so no caller can change them.
func Categories() []string {
	return []string{
		"tool_error", "false_success_claim", "unconfirmed_write", "policy_violation",
		"repetition", "user_repeats", "user_frustration", "human_handoff", "refusal",
		"unresolved", "knowledge_gap", "long_conversation", "personal_data",
		"prompt_injection", "harmful_content", "other",
	}
}

// Outcomes is the vocabulary of a conversation's outcome.
func Outcomes() []string {
	return []string{"resolved", "partially_resolved", "unresolved", "escalated", "abandoned"}
}

// FixLocations is where an Action says the fix belongs.
func FixLocations() []string { return []string{"prompt", "tool", "policy", "knowledge", "product"} }

// Evidence points at a turn of the conversation and quotes it. Verified is set by the
// pipeline, never by the analyzer: true when the quote is found in that turn.
type Evidence struct {
	Turn     int    `json:"turn"`
	Quote    string `json:"quote"`
	Verified bool   `json:"verified"`
	// Speaker says whose words the quote is (SpeakerUser, …), set by the pipeline with
	// Verified, so an exchange can be shown as who said what; empty when not known.
	Speaker string `json:"speaker,omitempty"`
	// Tool names the tool of a SpeakerCall quote (the call it is part of) or of a
	// SpeakerTool quote (the call it answers), set with Speaker: a quote of an
	// argument or a result says nothing of which tool it was.
	Tool string `json:"tool,omitempty"`
	// Continues says the quote stops where its turn goes on and a reader would take the
	// cut for the end: words of the user or the agent after it, or a fragment of a call
	// or a result that stops inside a list or an object. Set with Speaker.
	Continues bool `json:"continues,omitempty"`
	// SameAs is, for a SpeakerCall quote, the turn of an earlier call quote of the same
	// finding whose call it repeats: the same tool with the same arguments, whole, which
	// a quote cut from long arguments cannot show. 0 otherwise. Set with Speaker.
	SameAs int `json:"same_as,omitempty"`
}

// Who an evidence quote is from.
const (
	SpeakerUser  = "user"  // the user's words
	SpeakerAgent = "agent" // the agent's words
	SpeakerCall  = "call"  // the agent's tool call, quoted as name(arguments)
	SpeakerTool  = "tool"  // a tool's result
)

// Finding is one problem seen in one conversation.
type Finding struct {
	Type          FindingType `json:"type"`
	Category      string      `json:"category"`
	Title         string      `json:"title"`
	Description   string      `json:"description"`
	Severity      int         `json:"severity"`   // 1..5
	Confidence    float64     `json:"confidence"` // 0..1
	Evidence      []Evidence  `json:"evidence"`
	PriorityScore float64     `json:"priorityScore"` // 0..100
	// Expected marks behaviour the agent's own policy (its system prompt) calls for, such
	// as a refusal the policy requires: shown apart, never an Action, and never counted
	// towards the conversation's severity or failure score. Policy quotes the sentence
	// of the policy it follows; it is set exactly when Expected is.
	Expected bool   `json:"expected"`
	Policy   string `json:"policy"`
	// Words keeps the title and description by message key and arguments, for an
	// analyzer that writes from the catalog (the offline rules): each reader reads them
	// in their language. Nil for a finding written in words only (a model's).
	Words *Words `json:"text,omitempty"`
}

// Words is a finding's title and description as catalog messages (locale.Text).
type Words struct {
	Title       locale.Text `json:"title"`
	Description locale.Text `json:"description"`
}

// Diagnosis is an analyzer's reading of one conversation. FailureScore is its estimate,
// 0..1, that the conversation failed the user (0.5 and above reads as failed), and
// FailedTurn the turn where things went wrong, 0 when nothing did.
type Diagnosis struct {
	Outcome      string    `json:"outcome"`
	Summary      string    `json:"summary"`
	Findings     []Finding `json:"findings"`
	FailureScore float64   `json:"failureScore"`
	FailedTurn   int       `json:"failedTurn"`
	// SummaryWords keeps Summary as a catalog message, for an analyzer that writes from
	// the catalog (the offline rules); nil for a summary written in words only.
	SummaryWords *locale.Text `json:"summaryText,omitempty"`
}

// Example is one piece of evidence a cluster carries into its Action.
type Example struct {
	ConversationID string `json:"conversation_id"`
	Seq            int    `json:"seq"`
	Turn           int    `json:"turn"`
	Quote          string `json:"quote"`
	FindingTitle   string `json:"finding_title"`
}

// ClusterBrief is what an analyzer is told about an issue cluster to write its Action.
type ClusterBrief struct {
	Type              FindingType `json:"type"`
	Category          string      `json:"category"`
	Title             string      `json:"title"`
	Descriptions      []string    `json:"descriptions"`
	ConversationCount int         `json:"conversation_count"`
	AnalysedCount     int         `json:"analysed_count"`
	Severity          float64     `json:"severity"`
	Confidence        float64     `json:"confidence"`
	PriorityScore     float64     `json:"priority_score"`
	Examples          []Example   `json:"examples"`
	// TitleText and DescriptionTexts are Title and Descriptions as catalog messages,
	// where the findings keep them (Finding.Words; a zero Text where one does not): what
	// an analyzer writing from the catalog builds its Action's Text from. A model is not
	// sent them.
	TitleText        locale.Text   `json:"-"`
	DescriptionTexts []locale.Text `json:"-"`
}

// Action is the recommendation written for one cluster.
type Action struct {
	Title          string   `json:"title"`
	Problem        string   `json:"problem"`
	Recommendation []string `json:"recommendation"`
	ExpectedImpact string   `json:"expectedImpact"`
	FixLocation    string   `json:"fixLocation"`
	// Words keeps the texts by message key and arguments, for an analyzer that writes
	// from the catalog (the offline playbook); nil for an Action written in words only.
	Words *ActionWords `json:"text,omitempty"`
}

// ActionWords is an Action's texts as catalog messages (locale.Text).
type ActionWords struct {
	Title          locale.Text   `json:"title"`
	Problem        locale.Text   `json:"problem"`
	Recommendation []locale.Text `json:"recommendation"`
	ExpectedImpact locale.Text   `json:"expectedImpact"`
}

// BestEvidence is the evidence a finding is shown by: its first verified quote in
// words (the user's, the agent's or a tool's, not a serialized tool call), else its
// first verified quote, else its first quote; false when it has none.
func BestEvidence(ev []Evidence) (Evidence, bool) {
	if len(ev) == 0 {
		return Evidence{}, false
	}
	if i := slices.IndexFunc(ev, func(e Evidence) bool { return e.Verified && e.Speaker != SpeakerCall }); i >= 0 {
		return ev[i], true
	}
	if i := slices.IndexFunc(ev, func(e Evidence) bool { return e.Verified }); i >= 0 {
		return ev[i], true
	}
	return ev[0], true
}
