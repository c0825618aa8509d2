// Package report is the report of one diagnosis, assembled from what is stored, and
// the downloads written from it: report.json, actions.csv, findings.csv, report.md and
// labels.csv.
// The task page renders the same Report, so the page and the downloads always show the
// same ranks and counts; the views import it, and it imports no view and nothing of
// the web framework.
//
// Report is the schema of report.json. Its field names and meanings are a contract
// with the scripts that read it (docs/report-json.md describes every field): adding a
// field is allowed within a version; renaming, removing or changing the meaning of one
// needs a new SchemaVersion.
package report

import (
	"time"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/cluster"
	"github.com/checkup-dev/checkup/workers/detector"
	"github.com/checkup-dev/checkup/workers/pipeline"
)

// SchemaVersion is the version of report.json's schema, written as schema_version.
const SchemaVersion = 1

// Report is everything known about one diagnosis, finished or not.
type Report struct {
	SchemaVersion int         `json:"schema_version"`
	GeneratedAt   time.Time   `json:"generated_at"`
	Task          Task        `json:"task"`
	Analysis      Analysis    `json:"analysis"`
	Usage         Usage       `json:"usage"`
	Reliability   Reliability `json:"reliability"`
	Population    Population  `json:"population"`
	LabelCheck    *LabelCheck `json:"label_check"`
	// FailureModel is the agent's failure detector that scored this run (or that this
	// run's labels trained), null when none did: the failure scores then come from it.
	FailureModel  *detector.Summary `json:"failure_model"`
	Drivers       []Driver          `json:"drivers"`
	Funnel        []FunnelStep      `json:"funnel"`
	RiskSummary   *RiskSummary      `json:"risk_summary"`
	Actions       []Action          `json:"actions"`
	FailedActions []FailedAction    `json:"failed_actions"`
	Clusters      []Cluster         `json:"clusters"`
	Warnings      []Warning         `json:"warnings"`
	WarningCount  int               `json:"warning_count"`
	// Findings and Conversations are filled in the downloads only; the task page
	// leaves them empty (and report.json always has them). A streamed report (Stream)
	// leaves them empty too and reads them as it is written: range over AllFindings,
	// AllConversations and AllWarnings.
	Findings      []Finding      `json:"findings"`
	Conversations []Conversation `json:"conversations"`
	// BaseURL is the dashboard's public address (BASE_URL), which actions.csv links the
	// cited conversations under; it is not part of report.json.
	BaseURL string `json:"-"`
	// ActionIssuesNextRun is how many ACTION issues a new run of a concluded diagnosis
	// writes an Action for, over the clusters as they are now: at most
	// cluster.MaxActionCandidates, so an issue that ranks among them since a mark may
	// take a listed one's place. It is not part of report.json.
	ActionIssuesNextRun int `json:"-"`

	lists Lists             // the long lists of a streamed report; nil when held in the fields above
	ranks map[int]int       // cluster index → its Action's rank, for findings read later
	lang  *locale.Localizer // writes the texts, of findings read later too
}

// Task is the task's identity, state and source.
type Task struct {
	ID                string           `json:"id"`
	Title             string           `json:"title"`
	Status            taskstate.Status `json:"status"`
	Terminal          bool             `json:"terminal"`
	Stage             taskstate.Stage  `json:"stage"`
	Error             string           `json:"error"`
	ProgressDone      int              `json:"progress_done"`
	ProgressTotal     int              `json:"progress_total"`
	Attempt           int              `json:"attempt"`
	LostCount         int              `json:"lost_count"`
	Resumed           bool             `json:"resumed"`
	CreatedAt         time.Time        `json:"created_at"`
	StartedAt         *time.Time       `json:"started_at"`
	FinishedAt        *time.Time       `json:"finished_at"`
	CancelRequestedAt *time.Time       `json:"cancel_requested_at"`
	ProviderDownSince *time.Time       `json:"provider_down_since"`
	SourceFilename    string           `json:"source_filename"`
	SourceFormat      string           `json:"source_format"`
	SourceBytes       int64            `json:"source_bytes"`
	ConversationCount int              `json:"conversation_count"`
	RerunOf           string           `json:"rerun_of"`
	// Agent is the name of the owner's agent the diagnosis belongs to, AgentID its id
	// (nil for a diagnosis without one), which the owner's rules are scoped by; the id
	// is not part of report.json.
	Agent   string `json:"agent"`
	AgentID *int64 `json:"-"`
}

// Analysis says what produced the report. It is empty until a worker starts the task.
type Analysis struct {
	Analyzer             string `json:"analyzer"`
	Label                string `json:"label"`
	Offline              bool   `json:"offline"`
	Model                string `json:"model"`
	PromptVersion        string `json:"prompt_version"`
	DiagnosisConcurrency int    `json:"diagnosis_concurrency"`
	ActionConcurrency    int    `json:"action_concurrency"`
	MaxDiagnosed         int    `json:"max_diagnosed"`
	MinConversations     int    `json:"min_conversations"`
}

// Usage is the model spend: totals and one line per pipeline stage.
type Usage struct {
	LLMCalls         int          `json:"llm_calls"`
	PromptTokens     int64        `json:"prompt_tokens"`
	CompletionTokens int64        `json:"completion_tokens"`
	ByStage          []StageUsage `json:"by_stage"`
}

// StageUsage is the spend of one stage.
type StageUsage struct {
	Stage            taskstate.Stage `json:"stage"`
	Calls            int             `json:"calls"`
	PromptTokens     int64           `json:"prompt_tokens"`
	CompletionTokens int64           `json:"completion_tokens"`
}

// Reliability counts how the analyzer's answers became valid.
type Reliability struct {
	FirstPassValid int `json:"first_pass_valid"`
	Repaired       int `json:"repaired"`
	Isolated       int `json:"isolated"`
}

// Population is the size of each group of conversations the report talks about.
type Population struct {
	Uploaded int      `json:"uploaded"`
	Kept     int      `json:"kept"`
	Analysed int      `json:"analysed"` // diagnosed with a valid answer: first-pass valid + repaired
	Labelled Labelled `json:"labelled"`
}

// Checked reports whether the quality checks have run: before, the kept and analyzed
// counts are not zero but unknown.
func (r Report) Checked() bool { return len(r.Funnel) > 0 }

// IssueCounts counts the clusters that are issues and those that are expected
// behaviour, as the page, report.md and the Actions count them.
func (r Report) IssueCounts() (issues, expected int) {
	for _, c := range r.Clusters {
		if c.Expected {
			expected++
		}
	}
	return len(r.Clusters) - expected, expected
}

// WaitingIssues counts the issues of type typ ("RISK" or "ACTION") that rank among the
// Actions now but did not when they were written (NoActionIssueSince): the next run
// writes theirs.
func (r Report) WaitingIssues(typ string) int {
	n := 0
	for _, c := range r.Clusters {
		if c.Type == typ && c.NoAction == NoActionIssueSince {
			n++
		}
	}
	return n
}

// UploadedCount is how many conversations the upload holds, for people: the task's
// count before the quality checks have run (Population.Uploaded counts those that
// entered them, zero until then).
func (r Report) UploadedCount() int {
	return max(r.Population.Uploaded, r.Task.ConversationCount)
}

// Labelled counts the kept conversations by the outcome label the upload carried, and
// names the field it was read from ("metadata.success"; empty without labels).
type Labelled struct {
	Failed     int    `json:"failed"`
	Succeeded  int    `json:"succeeded"`
	Unlabelled int    `json:"unlabelled"`
	Field      string `json:"field"`
}

// Any reports whether any conversation carries a label.
func (l Labelled) Any() bool { return l.Failed+l.Succeeded > 0 }

// LabelCheck is how well the diagnosis agrees with the outcome labels: the AUROC of the
// failure score against failure, and the shares of failed conversations flagged (failure
// score 0.5 or more) and of successful ones left clean. Fields are null when a class is
// empty.
type LabelCheck struct {
	Labelled       int      `json:"labelled"`
	Failed         int      `json:"failed"`
	Succeeded      int      `json:"succeeded"`
	AUROC          *float64 `json:"auroc"`
	FailedFlagged  *float64 `json:"failed_flagged"`
	SucceededClean *float64 `json:"succeeded_clean"`
	// Baselines are what counting alone scores against the same labels (messages,
	// user turns, tool calls; more meaning failed), beside AUROC. Empty when it is null.
	Baselines []detector.Baseline `json:"baselines"`
}

// Driver is a feature over-represented among the failed conversations. Idx is its
// position, strongest first; Conversations is how many labelled conversations with it
// the conversation list shows (0 for a task diagnosed before they were kept).
type Driver struct {
	Idx           int     `json:"idx"`
	Feature       string  `json:"feature"`
	Kind          string  `json:"kind"`
	Failed        int     `json:"failed"`
	Succeeded     int     `json:"succeeded"`
	RateWith      float64 `json:"rate_with"`
	RateWithout   float64 `json:"rate_without"`
	Lift          float64 `json:"lift"`
	PValue        float64 `json:"p_value"`
	QValue        float64 `json:"q_value"`
	Examples      []Ref   `json:"examples"`
	Conversations int     `json:"conversations"`
	// Written is where a word driver (kinds user_words and agent_words) is written in
	// its first example conversation, which says what the word is about; null for the
	// other kinds and for drivers stored before it was kept.
	Written *DriverQuote `json:"written"`
}

// DriverQuote is a turn of a conversation and a quote of it around a driver's words.
type DriverQuote struct {
	Ref
	Turn  int    `json:"turn"`
	Quote string `json:"quote"`
}

// Ref points at one conversation.
type Ref struct {
	Seq int    `json:"seq"`
	ID  string `json:"id"`
}

// FunnelStep is one step of the quality checks: how many conversations it removed and
// why, and how many were left.
type FunnelStep struct {
	Step      string         `json:"step"`
	Label     string         `json:"label"`
	Removed   int            `json:"removed"`
	Remaining int            `json:"remaining"`
	Reasons   []FunnelReason `json:"reasons"`
}

// FunnelReason counts the conversations a step removed for one reason.
type FunnelReason struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// RiskSummary, RiskKind and RiskExample are the deterministic risk screening of the
// kept conversations, in the shape the pipeline stores it (pipeline.RiskSummary) and
// the report reads back whole.
type (
	RiskSummary = pipeline.RiskSummary
	RiskKind    = pipeline.RiskKindSummary
	RiskExample = pipeline.RiskExample
)

// PriorityParts shows how a cluster's priority score was computed, as clustering
// stores it.
type PriorityParts = cluster.PriorityParts

// Support is what an issue's rank rests on (cluster.SupportFormula), with its parts.
type Support = cluster.Support

// Action is one ranked recommendation, written for one issue cluster.
type Action struct {
	Rank           int           `json:"rank"`
	CandidateIndex int           `json:"candidate_index"`
	Type           string        `json:"type"`
	Category       string        `json:"category"`
	Title          string        `json:"title"`
	Problem        string        `json:"problem"`
	Recommendation []string      `json:"recommendation"`
	ExpectedImpact string        `json:"expected_impact"`
	FixLocation    string        `json:"fix_location"`
	ClusterIdx     int           `json:"cluster_idx"`
	ClusterTitle   string        `json:"cluster_title"`
	Conversations  int           `json:"conversations"`
	Share          float64       `json:"share"`
	Severity       float64       `json:"severity"`
	Confidence     float64       `json:"confidence"`
	PriorityScore  float64       `json:"priority_score"`
	PriorityParts  PriorityParts `json:"priority_parts"`
	// Support is what the Action's rank rests on: its issue's.
	Support Support `json:"support"`
	// PriorityDecided: the Action stands equal by the rank with its neighbours and
	// their priority scores differ, so the score decided its place (the page shows the
	// score only then). Not part of report.json.
	PriorityDecided bool    `json:"-"`
	Evidence        []Quote `json:"evidence"`
	OutcomeSplit
	// Words keeps the texts as catalog messages (TitleIn, ProblemIn, …); nil for an
	// Action written in words only. Not part of report.json.
	Words *analyzer.ActionWords `json:"-"`
}

// Quote is a piece of evidence: a quoted turn of a conversation, the one of its
// finding's quotes that says most in words, with the exchange it belongs to.
type Quote struct {
	ConversationSeq int    `json:"conversation_seq"`
	ConversationID  string `json:"conversation_id"`
	Turn            int    `json:"turn"`
	Quote           string `json:"quote"`
	Verified        bool   `json:"verified"`
	FindingTitle    string `json:"finding_title"`
	// Description is the finding's own description: what this example is said to show
	// ("the retry took that off the record"), so it is judged on its own. Empty for an
	// Action stored before examples carried it.
	Description string          `json:"description"`
	Words       *analyzer.Words `json:"-"` // the description by message, when the rules wrote it
	// Exchange is every quote of the finding, in turn order, each saying whose it is:
	// the user's words, the agent's tool call and its reply, the tool's result beside
	// the agent's claim. It holds the quote above.
	Exchange []Evidence `json:"exchange"`
}

// FailedAction is a candidate cluster whose Action could not be written.
type FailedAction struct {
	CandidateIndex int    `json:"candidate_index"`
	ClusterIdx     int    `json:"cluster_idx"`
	Type           string `json:"type"`
	ClusterTitle   string `json:"cluster_title"`
	Error          string `json:"error"`
}

// Cluster is a group of similar findings across conversations.
type Cluster struct {
	Idx              int           `json:"idx"`
	Type             string        `json:"type"`
	Category         string        `json:"category"`
	Title            string        `json:"title"`
	Conversations    int           `json:"conversations"`
	ConversationSeqs []int         `json:"conversation_seqs"`
	FindingCount     int           `json:"finding_count"`
	Prevalence       float64       `json:"prevalence"`
	Severity         float64       `json:"severity"`
	Confidence       float64       `json:"confidence"`
	PriorityScore    float64       `json:"priority_score"`
	PriorityParts    PriorityParts `json:"priority_parts"`
	ActionRank       int           `json:"action_rank"` // 0 when no Action was written for it
	// Support is what the issue's rank rests on; the clusters are listed in rank order.
	Support Support `json:"support"`
	// Example is the first quote its evidence shows; null when it has none.
	Example *Quote `json:"example"`
	// NoAction says why an issue has no Action (NoActionRankedBelow, …); empty when it
	// has one, for expected behaviour, and until the diagnosis has completed (also when
	// it failed or was canceled: none of its issues got that far).
	NoAction string `json:"no_action"`
	// Expected clusters hold behaviour the agent's own policy calls for, or that the
	// owner marked as expected: listed apart and never an Action. ExpectedBy says which
	// ("policy" or "owner"; null when not expected) and ExpectedReason why: the owner's
	// reason (possibly empty), or the first policy sentence. Policies are the distinct
	// policy sentences its shown findings follow. PolicyOverruled: the policy seemed to
	// call for it, but the owner said it is not expected (ExpectedReason why); it is an
	// issue, and Policies are the sentences it was matched to.
	Expected        bool     `json:"expected"`
	ExpectedBy      *string  `json:"expected_by"`
	ExpectedReason  string   `json:"expected_reason"`
	PolicyOverruled bool     `json:"policy_overruled"`
	Policies        []string `json:"policies"`
	OutcomeSplit
	// TitleText keeps Title as a catalog message (TitleIn), where its findings keep
	// one; zero otherwise. Not part of report.json.
	TitleText locale.Text `json:"-"`
}

// SeenOnce reports whether the issue was seen in one conversation only: it is listed
// apart, below the Actions, without one.
func (c Cluster) SeenOnce() bool { return c.Support.SeenOnce }

// SeenOnce is the issues seen in one conversation only that are not expected
// behaviour, in rank order: listed below the Actions, without a recipe.
func (r Report) SeenOnce() []Cluster {
	var out []Cluster
	for _, c := range r.Clusters {
		if c.SeenOnce() && !c.Expected {
			out = append(out, c)
		}
	}
	return out
}

// IsRisk reports whether the cluster's findings are risks (RISK), which a mark of
// expected behaviour hides from later diagnoses too, so it takes a reason.
func (c Cluster) IsRisk() bool { return c.Type == string(analyzer.TypeRisk) }

// OutcomeSplit is a cluster's split by the outcome labels of its conversations, every
// field null without labels: the failure rate inside and outside it, its lift (the rate
// inside over the rate of all labelled conversations), the failures it explains beyond
// what its size predicts, and a two-sided Fisher exact test with its
// Benjamini–Hochberg q-value over the task's clusters. An Action carries its cluster's.
type OutcomeSplit struct {
	LabelOutcomes  *LabelOutcomes `json:"label_outcomes"`
	FailureRateIn  *float64       `json:"failure_rate_in"`
	FailureRateOut *float64       `json:"failure_rate_out"`
	FailureLift    *float64       `json:"failure_lift"`
	ExcessFailures *float64       `json:"excess_failures"`
	PValue         *float64       `json:"p_value"`
	QValue         *float64       `json:"q_value"`
	// EstimatedFailures and EstimatedExcess are set when the agent's detector scored
	// the run: the failures the cluster holds (its labelled failures and the failure
	// scores of the rest) and how many more than its size predicts.
	EstimatedFailures *float64 `json:"estimated_failures"`
	EstimatedExcess   *float64 `json:"estimated_excess"`
}

// LabelOutcomes counts a cluster's conversations by outcome label.
type LabelOutcomes struct {
	Failed     int `json:"failed"`
	Succeeded  int `json:"succeeded"`
	Unlabelled int `json:"unlabelled"`
}

// Warning is something that went wrong without stopping the task. Scope and Message
// are in English, as report.json keeps them; ScopeIn and MessageIn write them in a
// reader's language.
type Warning struct {
	Stage     taskstate.Stage `json:"stage"`
	Scope     string          `json:"scope"`
	Message   string          `json:"message"`
	CreatedAt time.Time       `json:"created_at"`
	// ScopeText and MessageText keep Scope and Message as catalog messages; zero for
	// warnings stored in words only (those made before they were kept).
	ScopeText   locale.Text `json:"-"`
	MessageText locale.Text `json:"-"`
}

// Finding is one problem the analyzer saw in one conversation.
type Finding struct {
	ConversationSeq int        `json:"conversation_seq"`
	ConversationID  string     `json:"conversation_id"`
	Idx             int        `json:"idx"`
	Type            string     `json:"type"`
	Category        string     `json:"category"`
	Title           string     `json:"title"`
	Description     string     `json:"description"`
	Severity        int        `json:"severity"`
	Confidence      float64    `json:"confidence"`
	PriorityScore   float64    `json:"priority_score"`
	Expected        bool       `json:"expected"`
	Policy          string     `json:"policy"`
	ClusterIdx      *int       `json:"cluster_idx"`
	ActionRank      int        `json:"action_rank"` // 0 when its cluster has no Action
	Evidence        []Evidence `json:"evidence"`
	// Words keeps Title and Description as catalog messages (TitleIn, DescriptionIn);
	// nil for a finding written in words only. Not part of report.json.
	Words *analyzer.Words `json:"-"`
}

// Evidence is a quote from a turn as the pipeline stored it (analyzer.Evidence):
// Verified is true when the quote was found in it, Speaker says whose words it is, Tool
// the tool of a call's or a tool result's quote, Continues that the turn goes on where
// the quote stops, so a reader is shown the cut.
type Evidence = analyzer.Evidence

// Conversation is one uploaded conversation's verdicts, without its messages.
type Conversation struct {
	Seq             int                       `json:"seq"`
	ID              string                    `json:"id"`
	Messages        int                       `json:"messages"`
	QCStatus        taskstate.QCStatus        `json:"qc_status"`
	QCReason        string                    `json:"qc_reason"`
	RiskFlags       []RiskFlag                `json:"risk_flags"`
	Selected        bool                      `json:"selected"`
	DiagnosisStatus taskstate.DiagnosisStatus `json:"diagnosis_status"`
	DiagnosisPass   string                    `json:"diagnosis_pass"`
	DiagnosisError  string                    `json:"diagnosis_error"`
	Outcome         string                    `json:"outcome"`
	Summary         string                    `json:"summary"`
	// Label is the outcome the upload recorded ("failed" or "succeeded"), null without
	// one. FailureScore is the diagnosis' estimate, 0..1, that the conversation failed
	// (null until diagnosed); EstimatedOutcome reads it ("failed" from 0.5); FailedTurn
	// is the turn where things went wrong, 0 when none.
	Label            *string  `json:"label"`
	FailureScore     *float64 `json:"failure_score"`
	EstimatedOutcome string   `json:"estimated_outcome"`
	FailedTurn       int      `json:"failed_turn"`
	// LabelSource says where Label came from: "upload" or "reviewer" (the owner on the
	// pages or through the API); null without a label. ReviewedLabel is what the owner
	// said, null when they said nothing (it differs from Label when the upload's label
	// won), and ReviewedAt when.
	LabelSource   *string    `json:"label_source"`
	ReviewedLabel *string    `json:"reviewed_label"`
	ReviewedAt    *time.Time `json:"reviewed_at"`
}

// RiskFlag is one deterministic risk observation on a turn. CutBefore and CutAfter
// say the quote was cut out of the turn mid-sentence there.
type RiskFlag struct {
	Kind      string `json:"kind"`
	Turn      int    `json:"turn"`
	Quote     string `json:"quote"`
	Detail    string `json:"detail"`
	CutBefore bool   `json:"cut_before,omitempty"`
	CutAfter  bool   `json:"cut_after,omitempty"`
}

// Marked is the flag's quote with an ellipsis on each side where it was cut.
func (f RiskFlag) Marked() string {
	return RiskExample{CutBefore: f.CutBefore, CutAfter: f.CutAfter}.Marked(f.Quote)
}
