package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/apptest"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestThreeInstancesLoseTwoAndEveryTaskFinishes runs three instances (web and
// embedded worker) on one database, uploads three tasks over HTTP so each instance
// runs one, then kills one instance with SIGKILL and stops another with SIGTERM in the
// middle of their tasks. The last instance takes the killed one's task over once its
// heartbeat is stale, resumes the handed-back one at once, and every task completes
// with its report intact.
func TestThreeInstancesLoseTwoAndEveryTaskFinishes(t *testing.T) {
	t.Parallel()
	pool, dbURL := dbtest.Isolated(t)
	o := setupOps(t, pool, dbURL, 60*time.Millisecond)
	procs := []*apptest.Process{o.start(t), o.start(t), o.start(t)}

	const perTask = 24
	var ids []uuid.UUID
	for i, p := range procs {
		ids = append(ids, o.upload(t, p.Addr, fmt.Sprintf("part-%d.jsonl", i+1), sampleSlice(t, i*perTask, perTask)))
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
