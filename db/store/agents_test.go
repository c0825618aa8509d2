package store_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestAgentsAreTheOwners: an upload names its agent (made on first use, its system
// prompt kept), another owner's agents are neither listed nor readable, and deleting
// the owner removes their agents and detectors with them.
func TestAgentsAreTheOwners(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	ctx := context.Background()
	s, q := store.New(pool), dbsqlc.New()
	alice := store.NewOwner(reporttest.User(t, pool, "alice-"+uuid.NewString()))
	bob := store.NewOwner(reporttest.User(t, pool, "bob-"+uuid.NewString()))
	upload := func(owner store.Owner, agent, prompt string) uuid.UUID {
		u, err := s.BeginTask(ctx, owner, store.NewTask{Title: "weekly"})
		require.NoError(t, err)
		defer u.Rollback()
		require.NoError(t, u.Add(store.ConversationOf(transcript.Conversation{ID: "c1", Messages: []transcript.Message{
			{Role: transcript.RoleSystem, Content: prompt}, {Role: transcript.RoleUser, Content: "hi"}, {Role: transcript.RoleAssistant, Content: "hello"},
		}})))
		require.NoError(t, u.Publish(ctx, store.UploadEnd{Format: "test", Agent: agent, SystemPrompt: prompt}))
		return u.ID()
	}
	upload(alice, "Support", "You are a support agent.")
	upload(alice, "Support", "You are a support agent, v2.")
	upload(alice, "", "")
	upload(bob, "Support", "Bob's agent.")

	agents, err := s.Agents(ctx, alice)
	require.NoError(t, err)
	require.Len(t, agents, 2, "a named agent, and one named after the title")
	names := map[string]int{}
	for _, a := range agents {
		names[a.Name] = a.Runs
	}
	require.Equal(t, map[string]int{"Support": 2, "weekly": 1}, names)
	prompts, err := s.AgentPrompts(ctx, alice)
	require.NoError(t, err)
	for _, p := range prompts {
		if p.Name == "Support" {
			require.Equal(t, "You are a support agent, v2.", p.SystemPrompt, "the latest run's prompt")
		}
	}
	bobs, err := s.Agents(ctx, bob)
	require.NoError(t, err)
	require.Len(t, bobs, 1)
	_, err = q.GetAgent(ctx, pool, dbsqlc.GetAgentParams{ID: bobs[0].ID, OwnerUserID: alice.UserID()})
	require.Error(t, err, "another owner's agent is not found")

	_, err = pool.Exec(ctx, `INSERT INTO failure_model (agent_id, owner_user_id, version, summary, model) VALUES ($1, $2, 1, '{}', '{}')`,
		agents[0].ID, alice.UserID())
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `DELETE FROM app_user WHERE id = $1`, alice.UserID())
	require.NoError(t, err)
	var left int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM agent WHERE owner_user_id = $1) + (SELECT count(*) FROM failure_model WHERE owner_user_id = $1)`,
		alice.UserID()).Scan(&left))
	require.Zero(t, left, "the owner's agents and detectors went with them")
	bobs, err = s.Agents(ctx, bob)
	require.NoError(t, err)
	require.Len(t, bobs, 1, "nobody else's")
}
