package report

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/detector"
	"github.com/checkup-dev/checkup/workers/quality"
)

// Build assembles the report from the rows of one snapshot, its texts written by l:
// what the analysis stored by its message key reads in l's language, what it stored as
// words (a model's, or a row from before the keys) as it was stored. now is the
// generation time written into the report. A stored JSON value that cannot be read is
// an error: the report would otherwise silently lose part of the results.
func Build(rows store.ReportRows, now time.Time, l *locale.Localizer) (Report, error) {
	t := rows.Task
	r := Report{
		lang:          l,
		SchemaVersion: SchemaVersion,
		GeneratedAt:   now.UTC(),
		Task:          buildTask(t, rows.Agent),
		Usage:         Usage{LLMCalls: int(t.LlmCalls), PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, ByStage: []StageUsage{}},
		Reliability:   Reliability{FirstPassValid: int(t.FirstPassValid), Repaired: int(t.Repaired), Isolated: int(t.Isolated)},
		WarningCount:  int(rows.WarningCount),
		Actions:       []Action{},
		FailedActions: []FailedAction{},
		Clusters:      []Cluster{},
		Warnings:      []Warning{},
		Findings:      []Finding{},
		Conversations: []Conversation{},
		Funnel:        []FunnelStep{},
		Drivers:       []Driver{},
	}
	var err error
	if r.Analysis, err = buildAnalysis(t.Config); err != nil {
		return Report{}, err
	}
	if r.Funnel, err = decodeFunnel(l, t.Funnel); err != nil {
		return Report{}, err
	}
	if len(t.RiskSummary) > 0 && string(t.RiskSummary) != "null" {
		var rs RiskSummary
		if err := json.Unmarshal(t.RiskSummary, &rs); err != nil {
			return Report{}, fmt.Errorf("report: risk summary: %w", err)
		}
		if rs.Kinds == nil {
			rs.Kinds = []RiskKind{}
		}
		r.RiskSummary = &rs
	}
	r.Population = Population{Analysed: r.Reliability.FirstPassValid + r.Reliability.Repaired}
	if len(r.Funnel) > 0 {
		r.Population.Uploaded = r.Funnel[0].Remaining
		r.Population.Kept = r.Funnel[len(r.Funnel)-1].Remaining
	}
	for _, u := range rows.Usage {
		r.Usage.ByStage = append(r.Usage.ByStage, StageUsage{Stage: u.Stage, Calls: int(u.Calls), PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens})
	}
	for _, w := range rows.Warnings {
		r.Warnings = append(r.Warnings, buildWarning(w))
	}
	r.Population.Labelled = Labelled{
		Failed: int(t.KeptFailed), Succeeded: int(t.KeptSucceeded),
		Unlabelled: int(t.KeptUnlabelled), Field: t.LabelField,
	}
	if len(t.LabelCheck) > 0 && string(t.LabelCheck) != "null" {
		var lc LabelCheck
		if err := json.Unmarshal(t.LabelCheck, &lc); err != nil {
			return Report{}, fmt.Errorf("report: label check: %w", err)
		}
		if lc.Baselines == nil {
			lc.Baselines = []detector.Baseline{}
		}
		r.LabelCheck = &lc
	}
	if len(t.FailureModel) > 0 && string(t.FailureModel) != "null" {
		var fm detector.Summary
		if err := json.Unmarshal(t.FailureModel, &fm); err != nil {
			return Report{}, fmt.Errorf("report: failure model: %w", err)
		}
		r.FailureModel = &fm
	}
	quotes, err := clusterQuotes(rows.Evidence)
	if err != nil {
		return Report{}, err
	}
	policies := clusterPolicies(rows.Evidence)
	ranks := map[int]int{}
	for _, a := range rows.Actions {
		if err := r.addAction(a, quotes); err != nil {
			return Report{}, err
		}
		if a.Rank != nil {
			ranks[int(a.ClusterIdx)] = int(*a.Rank)
		}
	}
	splits := map[int]OutcomeSplit{}
	var seqs map[int32][]int32 // nil unless the clusters' conversations were read
	if rows.ClusterConversations != nil {
		seqs = make(map[int32][]int32, len(rows.ClusterConversations))
		for _, c := range rows.ClusterConversations {
			seqs[c.Idx] = c.ConversationSeqs
		}
	}
	for _, c := range rows.Clusters {
		cl, err := buildCluster(c, seqs, ranks, policies)
		if err != nil {
			return Report{}, err
		}
		if q := quotes[cl.Idx]; len(q) > 0 {
			cl.Example = &q[0]
		}
		r.Clusters = append(r.Clusters, cl)
		splits[cl.Idx] = cl.OutcomeSplit
	}
	for i := range r.Actions {
		r.Actions[i].OutcomeSplit = splits[r.Actions[i].ClusterIdx]
	}
	if err := r.rankClusters(rows.Clusters); err != nil {
		return Report{}, err
	}
	if err := r.explainNoActions(rows.Clusters); err != nil {
		return Report{}, err
	}
	for _, d := range rows.Drivers {
		r.Drivers = append(r.Drivers, buildDriver(d))
	}
	r.ranks = ranks
	for _, f := range rows.Findings {
		fd, err := buildFinding(f, ranks)
		if err != nil {
			return Report{}, err
		}
		r.Findings = append(r.Findings, fd)
	}
	for _, c := range rows.Conversations {
		conv, err := buildConversation(c)
		if err != nil {
			return Report{}, err
		}
		r.Conversations = append(r.Conversations, conv)
	}
	return r, nil
}

// buildWarning is a stored warning with its messages; one that cannot be read leaves
// the English.
func buildWarning(w dbsqlc.TaskWarning) Warning {
	out := Warning{Stage: w.Stage, Scope: w.Scope, Message: w.Message, CreatedAt: w.CreatedAt.UTC()}
	if len(w.ScopeText) > 0 && json.Unmarshal(w.ScopeText, &out.ScopeText) != nil {
		out.ScopeText = locale.Text{}
	}
	if len(w.MessageText) > 0 && json.Unmarshal(w.MessageText, &out.MessageText) != nil {
		out.MessageText = locale.Text{}
	}
	return out
}

func buildTask(t dbsqlc.AnalysisTask, agent string) Task {
	task := Task{
		ID: t.ID.String(), Title: t.Title, Status: t.Status, Terminal: t.Status.Terminal(), Stage: t.Stage,
		Error: t.Error, ProgressDone: int(t.ProgressDone), ProgressTotal: int(t.ProgressTotal),
		Attempt: int(t.Attempt), LostCount: int(t.LostCount), Resumed: t.LostCount > 0 || t.Attempt > 1,
		CreatedAt: t.CreatedAt.UTC(), StartedAt: utc(t.ClaimedAt), FinishedAt: utc(t.FinishedAt),
		CancelRequestedAt: utc(t.CancelRequestedAt), ProviderDownSince: utc(t.ProviderDownSince), SourceFilename: t.SourceFilename,
		SourceFormat: t.SourceFormat, SourceBytes: t.SourceBytes, ConversationCount: int(t.ConversationCount),
		Agent: agent, AgentID: t.AgentID,
	}
	if t.RerunOf != nil {
		task.RerunOf = t.RerunOf.String()
	}
	return task
}

// storedConfig mirrors pipeline.TaskConfig, the JSON the worker stores on the task.
type storedConfig struct {
	Analyzer             analyzer.Info `json:"analyzer"`
	DiagnosisConcurrency int           `json:"diagnosis_concurrency"`
	ActionConcurrency    int           `json:"action_concurrency"`
	MaxDiagnosed         int           `json:"max_diagnosed"`
	MinConversations     int           `json:"min_conversations"`
}

func buildAnalysis(raw json.RawMessage) (Analysis, error) {
	var c storedConfig
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			return Analysis{}, fmt.Errorf("report: task config: %w", err)
		}
	}
	return Analysis{
		Analyzer: c.Analyzer.Name, Label: c.Analyzer.Label, Offline: c.Analyzer.Name == "offline",
		Model: c.Analyzer.Model, PromptVersion: c.Analyzer.PromptVersion,
		DiagnosisConcurrency: c.DiagnosisConcurrency, ActionConcurrency: c.ActionConcurrency,
		MaxDiagnosed: c.MaxDiagnosed, MinConversations: c.MinConversations,
	}, nil
}

// decodeFunnel reads the stored quality.Funnel ({"steps": [...]}), its steps named
// and its reasons written by l.
func decodeFunnel(l *locale.Localizer, raw json.RawMessage) ([]FunnelStep, error) {
	var f quality.Funnel
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("report: funnel: %w", err)
		}
	}
	steps := make([]FunnelStep, 0, len(f.Steps))
	for _, s := range f.Steps {
		step := FunnelStep{Step: s.Step, Label: s.Label, Removed: s.Removed, Remaining: s.Remaining, Reasons: []FunnelReason{}}
		if label, ok := l.Lookup("funnel_step." + s.Step); ok && s.Step != "" {
			step.Label = label
		}
		for _, r := range s.Reasons {
			step.Reasons = append(step.Reasons, FunnelReason{Reason: l.Text(r.Reason), Count: r.Count})
		}
		steps = append(steps, step)
	}
	return steps, nil
}

func decodeParts(raw json.RawMessage) (PriorityParts, error) {
	var p PriorityParts
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return p, fmt.Errorf("report: priority parts: %w", err)
		}
	}
	return p, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
