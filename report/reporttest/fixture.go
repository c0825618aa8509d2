// Package reporttest writes small, complete tasks straight into the database, as the
// pipeline would have stored them, for tests of the report, the pages and the
// downloads.
package reporttest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// XSS is hostile text the fixture puts in a title, a quote, a message and an Action,
// so tests can check it is shown as text everywhere.
const XSS = `<script>alert(1)</script><b>bold</b>`

// Task describes the task to insert. Zero values take the defaults of a finished,
// offline diagnosis of six conversations.
type Task struct {
	Title  string           // default "Support bot, March"
	Status taskstate.Status // default completed
	System string           // the conversations' system prompt; default "You are an airline support agent."
}

// Inserted is what the fixture wrote, for tests to compare with.
type Inserted struct {
	ID            uuid.UUID
	Conversations int
	Findings      int
	Clusters      int
	Actions       int // ranked Actions; one more candidate failed
	Warnings      int
}

// User creates a user and returns its id.
func User(tb testing.TB, db dbsqlc.DBTX, name string) int64 {
	tb.Helper()
	u, err := dbsqlc.New().UpsertUser(context.Background(), db, dbsqlc.UpsertUserParams{
		Provider: "local", ProviderUserID: uuid.NewString(), Email: name + "@example.com", Name: name,
	})
	if err != nil {
		tb.Fatalf("reporttest: user: %v", err)
	}
	return u.ID
}

// Insert writes a finished task for owner with its conversations, findings, clusters,
// Actions (ranks 1 and 2, and one failed candidate), warnings and usage.
func Insert(tb testing.TB, db dbsqlc.DBTX, owner int64, spec Task) Inserted {
	tb.Helper()
	ctx := context.Background()
	title := spec.Title
	if title == "" {
		title = "Support bot, March"
	}
	status := spec.Status
	if status == "" {
		status = taskstate.Completed
	}
	exec := func(sql string, args ...any) {
		tb.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			tb.Fatalf("reporttest: %v\n%s", err, sql)
		}
	}
	id := uuid.New()
	finished := "now()"
	if !status.Terminal() {
		finished = "NULL"
	}
	exec(`INSERT INTO analysis_task (id, owner_user_id, title, status, stage, progress_done, progress_total,
		attempt, lost_count, claimed_at, heartbeat_at, finished_at, config, funnel, risk_summary,
		llm_calls, prompt_tokens, completion_tokens, first_pass_valid, repaired, isolated,
		conversation_count, source_filename, source_format, source_bytes, kept_unlabelled)
		VALUES ($1, $2, $3, $4, 'actions', 5, 6, 2, 1, now(), now(), `+finished+`, $5, $6, $7,
		0, 0, 0, 4, 1, 1, 6, 'export.jsonl', 'openai_jsonl', 12345, 6)`,
		id, owner, title, status, mustJSON(tb, config), mustJSON(tb, funnel), mustJSON(tb, riskSummary))
	for seq := 1; seq <= 6; seq++ {
		msgs := conversation(seq, cmp.Or(spec.System, "You are an airline support agent."))
		exec(`INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count,
			qc_status, risk_flags, selected, diagnosis, diagnosis_status, diagnosis_pass)
			VALUES ($1, $2, $3, $4, $5, $6, 'kept', $7, true, $8, $9, $10)`,
			id, owner, seq, fmt.Sprintf("conv-%d", seq), mustJSON(tb, msgs), len(msgs),
			mustJSON(tb, riskFlags(seq)), diagnosis(tb, seq), diagnosisStatus(seq), diagnosisPass(seq))
	}
	for _, c := range clusters {
		exec(`INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
			finding_count, prevalence, severity, confidence, priority_score, priority_parts)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			id, owner, c.idx, c.typ, c.category, c.title, c.seqs, len(c.seqs), float64(len(c.seqs))/5,
			c.severity, 0.8, c.score, mustJSON(tb, parts(c)))
	}
	findings := 0
	for _, c := range clusters {
		for i, seq := range c.seqs {
			quote := fmt.Sprintf("I asked twice already (%s, conversation %d)", c.category, seq)
			if c.idx == 0 && i == 0 {
				quote = XSS
			}
			ev := []analyzer.Evidence{{Turn: 2, Quote: quote, Verified: true}, {Turn: 4, Quote: "still waiting", Verified: false}}
			exec(`INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
				description, severity, confidence, priority_score, evidence, cluster_idx)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0.8, $10, $11, $12)`,
				id, owner, seq, c.idx, c.typ, c.category, c.title, "The user had to repeat the request.",
				int(c.severity), c.score, mustJSON(tb, ev), c.idx)
			findings++
		}
	}
	if _, err := dbsqlc.New().SetClusterEvidence(ctx, db, dbsqlc.SetClusterEvidenceParams{TaskID: id, OwnerUserID: owner, PerCluster: 3}); err != nil {
		tb.Fatalf("reporttest: cluster evidence: %v", err)
	}
	actions := []struct {
		candidate, cluster int
		rank               *int
		action             *analyzer.Action
		status, err        string
	}{
		{0, 0, ptr(1), &analyzer.Action{Title: "Stop showing card numbers " + XSS, Problem: "The assistant repeats card numbers.",
			Recommendation: []string{"Mask card numbers in tool results.", "Tell users why a number is hidden."},
			ExpectedImpact: `=HYPERLINK("http://evil","No card numbers in chats.")`, FixLocation: "tool"}, "done", ""},
		{1, 1, ptr(2), &analyzer.Action{Title: "Confirm before changing bookings", Problem: "Bookings change without a yes.",
			Recommendation: []string{"Ask for an explicit yes before any write."}, ExpectedImpact: "Fewer wrong changes.", FixLocation: "prompt"}, "done", ""},
		{2, 2, nil, nil, "failed", "the model timed out twice"},
	}
	for _, a := range actions {
		var raw []byte
		if a.action != nil {
			raw = mustJSON(tb, a.action)
		}
		exec(`INSERT INTO task_action (task_id, owner_user_id, candidate_index, cluster_idx, status, rank, action, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, id, owner, a.candidate, a.cluster, a.status, a.rank, raw, a.err)
	}
	exec(`INSERT INTO task_warning (task_id, owner_user_id, stage, scope, message) VALUES
		($1, $2, 'diagnosis', 'conversation conv-6', 'The answer stayed invalid after one repair; conversation left out.'),
		($1, $2, 'actions', 'cluster 2', 'The Action could not be written: the model timed out twice.')`, id, owner)
	exec(`INSERT INTO task_usage (task_id, owner_user_id, stage, calls) VALUES ($1, $2, 'diagnosis', 0), ($1, $2, 'actions', 0)`, id, owner)
	return Inserted{ID: id, Conversations: 6, Findings: findings, Clusters: len(clusters), Actions: 2, Warnings: 2}
}

func ptr(i int) *int { return &i }

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("reporttest: %v", err)
	}
	return b
}

// conversation is a short airline support chat; conversation 1 carries hostile text.
func conversation(seq int, system string) []transcript.Message {
	user := "I need to change my flight, booking ABC123."
	if seq == 1 {
		user = "Please help " + XSS
	}
	return []transcript.Message{
		{Role: transcript.RoleSystem, Content: system},
		{Role: transcript.RoleUser, Content: user},
		{Role: transcript.RoleAssistant, Content: "Let me look that up.", ToolCalls: []transcript.ToolCall{
			{ID: "call_1", Name: "get_booking", Arguments: `{"booking":"ABC123"}`}}},
		{Role: transcript.RoleTool, ToolCallID: "call_1", Content: `{"status":"confirmed","card":"4242"}`},
		{Role: transcript.RoleAssistant, Content: "Your booking is confirmed."},
	}
}
