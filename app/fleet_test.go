package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// TestThreeInstancesLoseTwoAndEveryTaskFinishes runs three instances (web and
// embedded worker) on one database, uploads three tasks over HTTP so each instance
// runs one, then kills one instance with SIGKILL and stops another with SIGTERM in the
// middle of their tasks. The model holds every task's diagnoses after its first few
// until the signals are sent, so that each is caught in its middle. The last instance
// takes the killed one's task over once its heartbeat is stale, resumes the
// handed-back one at once, and every task completes with its report intact.
func TestThreeInstancesLoseTwoAndEveryTaskFinishes(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	const perTask = 24
	var parts [][]byte
	for i := range 3 {
		parts = append(parts, sampleSlice(t, i*perTask, perTask))
	}
	release := make(chan struct{})
	o := setupOpsWith(t, pool, dbURL, holdBeyond(t, parts, 6, release))
	procs := []*apptest.Process{o.start(t), o.start(t), o.start(t)}

	var ids []uuid.UUID
	for i, p := range procs {
		ids = append(ids, o.upload(t, p.Addr, fmt.Sprintf("part-%d.jsonl", i+1), parts[i]))
	}
	var tasks []dbsqlc.AnalysisTask
	for _, id := range ids {
		tasks = append(tasks, o.waitTask(t, id, 30*time.Second, "the middle of its diagnosis", midDiagnosis))
	}
	killed, stopped := holder(t, tasks[0], procs), holder(t, tasks[1], procs)
	require.NotSame(t, killed, stopped, "each instance runs one task at a time")
	var survivor *apptest.Process
	for _, p := range procs {
		if p != killed && p != stopped {
			survivor = p
		}
	}
	t.Logf("instance %d runs %s (SIGKILL), %d runs %s (SIGTERM), %d runs %s",
		killed.Cmd.Process.Pid, ids[0], stopped.Cmd.Process.Pid, ids[1], survivor.Cmd.Process.Pid, ids[2])

	require.NoError(t, killed.Signal(syscall.SIGKILL))
	require.NoError(t, stopped.Signal(syscall.SIGTERM))
	close(release)
	code, err := stopped.Wait(20 * time.Second)
	require.NoError(t, err)
	require.Equal(t, 0, code)
	require.Contains(t, stopped.Output(), "task handed back")

	for i, id := range ids {
		task := o.waitTask(t, id, 60*time.Second, "the end", finished)
		r := o.checkReport(t, survivor.Addr, id)
		t.Logf("%s: %s, attempt %d, lost %d, %d conversations, %d Actions", id, task.Status, task.Attempt, task.LostCount, r.Population.Kept, len(r.Actions))
		switch i {
		case 0:
			require.EqualValues(t, 1, task.LostCount, "the killed instance's task was taken over")
		case 1:
			require.Zero(t, task.LostCount, "the stopped instance handed its task back")
			require.GreaterOrEqual(t, task.Attempt, int32(2))
		}
	}

	// Finished units were not redone: only the units alive when the instance was killed
	// were asked again — at most twice DIAGNOSIS_CONCURRENCY (2), the calls in flight
	// and the answered units waiting for their checkpoint. SIGTERM lost none: the units
	// alive finished within the grace and were stored.
	calls := o.diagnoseCalls()
	require.Len(t, calls, 3*perTask)
	again := 0
	for _, n := range calls {
		again += n - 1
	}
	require.LessOrEqual(t, again, 4, "conversations diagnosed twice: %d", again)
}

// holdBeyond answers every call after a short delay, except that once a held part
// has had its first diagnoses asked for, each further diagnosis of one of its
// conversations also waits for release.
func holdBeyond(t *testing.T, held [][]byte, first int, release <-chan struct{}) llmtest.Script {
	t.Helper()
	partOf := map[string]int{}
	for i, part := range held {
		for _, id := range conversationIDs(t, part) {
			partOf[id] = i
		}
	}
	var mu sync.Mutex
	asked := make([]int, len(held))
	return func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = 60 * time.Millisecond
		part, ok := partOf[req.Conversation()]
		if !ok || req.Schema() != "diagnosis" || req.Repair() {
			return r
		}
		mu.Lock()
		defer mu.Unlock()
		if asked[part]++; asked[part] > first {
			r.Until = release
		}
		return r
	}
}

// conversationIDs is the conversation_id of every line of a JSONL file.
func conversationIDs(t *testing.T, jsonl []byte) []string {
	t.Helper()
	var ids []string
	for line := range bytes.Lines(jsonl) {
		var c struct {
			ID string `json:"conversation_id"`
		}
		require.NoError(t, json.Unmarshal(line, &c))
		ids = append(ids, c.ID)
	}
	return ids
}
