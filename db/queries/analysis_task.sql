-- The task table is the queue: creating a task, the worker's claim, and the fenced
-- writes of the worker that holds the lease. A fenced write carries
-- `id, owner_user_id, attempt, status = 'running'`: zero rows means the lease is lost
-- (taken over, finished or canceled) and the worker writes nothing more.

-- name: CreateTask :one
-- A new pending task. The caller copies its conversations, runs
-- SetTaskConversationCount and NotifyTaskPending in the same transaction, and commits.
INSERT INTO analysis_task (owner_user_id, title, config, source_filename, source_format,
                           source_bytes, conversation_count)
VALUES (@owner_user_id, @title, @config, @source_filename, @source_format,
        @source_bytes, @conversation_count)
RETURNING id;

-- name: SetTaskConversationCount :execrows
-- Records what the upload held once its conversations are copied, with what a
-- streamed upload knows only at its end: the title, the size and the field its
-- outcome labels came from.
UPDATE analysis_task
SET conversation_count = @conversation_count, source_format = @source_format,
    title = @title, source_bytes = @source_bytes, label_field = @label_field
WHERE id = @id AND owner_user_id = @owner_user_id AND status = 'pending';

-- name: NotifyTaskPending :exec
-- Wakes the idle workers for task @id. A notification is delivered when its
-- transaction commits, so the transaction that creates a task sends it last: creating
-- the task and exposing it to the workers are one commit.
SELECT pg_notify('checkup_tasks', (@id::uuid)::text);

-- name: ClaimTask :many
-- owner-exempt: the worker takes the next task of any owner, or with @id the task an operator named (`app worker --task ID`); the row it returns names the owner, and every later write is fenced by it.
-- The claim: the oldest task that is pending, or running with a heartbeat older than
-- @stale (its worker was lost); with @id, only that task, on the same terms. attempt
-- becomes the lease's fencing token; a takeover also counts one more lost worker. At
-- most one row: :many so that "nothing to do" is an empty result rather than an error.
-- The status condition keeps the scan on the claimable partial index either way.
WITH candidate AS MATERIALIZED (
    SELECT id, status AS prior_status
    FROM analysis_task
    WHERE (status = 'pending'
           OR (status = 'running' AND heartbeat_at < coalesce(sqlc.narg('now')::timestamptz, now()) - @stale::interval))
      AND (sqlc.narg('id')::uuid IS NULL OR id = sqlc.narg('id')::uuid)
    ORDER BY created_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
UPDATE analysis_task t
SET status = 'running',
    attempt = t.attempt + 1,
    lost_count = t.lost_count + CASE WHEN candidate.prior_status = 'running' THEN 1 ELSE 0 END,
    lease_owner = @worker,
    claimed_at = coalesce(sqlc.narg('now')::timestamptz, now()),
    heartbeat_at = coalesce(sqlc.narg('now')::timestamptz, now())
FROM candidate
WHERE t.id = candidate.id
RETURNING t.id, t.owner_user_id, t.title, t.stage, t.attempt, t.lost_count, t.config,
          t.conversation_count, t.created_at, t.claimed_at, t.cancel_requested_at,
          (candidate.prior_status = 'running')::boolean AS took_over;

-- name: MaintenanceTaskState :many
-- owner-exempt: explains to the operator of `app worker --task ID` why that task cannot be claimed.
SELECT status, lease_owner, attempt,
       coalesce((extract(epoch FROM coalesce(sqlc.narg('now')::timestamptz, now()) - heartbeat_at) * 1000)::bigint, -1)::bigint AS heartbeat_age_ms
FROM analysis_task
WHERE id = @id;

-- name: ClaimNextStaleIn :one
-- owner-exempt: the idle worker looks at every running task's heartbeat, whoever owns it, to wake when the first one goes stale.
-- How many tasks run, and in how many milliseconds the first one's heartbeat goes stale
-- (negative when one already is); reads only the running tasks' partial index.
SELECT count(*) AS running,
       coalesce((extract(epoch FROM min(heartbeat_at) - coalesce(sqlc.narg('now')::timestamptz, now()) + @stale::interval) * 1000)::bigint, 0)::bigint AS stale_in_ms
FROM analysis_task
WHERE status = 'running';

-- name: HeartbeatTask :one
-- The fenced heartbeat. held is false when the lease is lost; cancel_requested is true
-- once the owner asked the task to stop, so a cancel is seen within one heartbeat.
WITH beat AS (
    UPDATE analysis_task
    SET heartbeat_at = coalesce(sqlc.narg('now')::timestamptz, now())
    WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running'
    RETURNING cancel_requested_at
)
SELECT count(*) > 0 AS held,
       coalesce(bool_or(cancel_requested_at IS NOT NULL), false)::boolean AS cancel_requested
FROM beat;

-- name: TouchTaskLease :execrows
-- The first statement of every transaction that writes a result: it locks the task row
-- for the rest of the transaction, so no takeover can commit in between, and zero rows
-- means the lease is lost and the transaction must roll back. It refreshes the
-- heartbeat too, so every finished unit is a heartbeat.
UPDATE analysis_task
SET heartbeat_at = coalesce(sqlc.narg('now')::timestamptz, now())
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskProgress :execrows
-- The fenced progress update; it is a heartbeat as well.
UPDATE analysis_task
SET stage = @stage, progress_done = @progress_done, progress_total = @progress_total,
    heartbeat_at = coalesce(sqlc.narg('now')::timestamptz, now())
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: FinishTask :execrows
-- The fenced end of a task: a terminal status with the reason shown to its owner.
UPDATE analysis_task
SET status = @status, error = @error,
    finished_at = coalesce(sqlc.narg('now')::timestamptz, now())
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: HandBackTask :execrows
-- The fenced hand-back: the task is pending again and another worker is woken to
-- resume it at once. attempt stays, so the next claim gets a new token. At shutdown
-- lost_count stays (@lost = 0), so a graceful restart does not count against
-- TASK_MAX_ATTEMPTS; after a database failure it counts (@lost = 1), so a task that
-- keeps failing that way cannot loop for ever.
UPDATE analysis_task
SET status = 'pending', lease_owner = NULL, heartbeat_at = NULL, lost_count = lost_count + @lost::int
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running'
RETURNING pg_notify('checkup_tasks', id::text)::text AS notified;

-- name: RequestTaskCancel :one
-- The owner's cancel. A pending task is canceled at once; a running one is asked to
-- stop, and its worker is told through a notification (or sees cancel_requested_at at
-- its next heartbeat). Returns the status after the request; no row means the task is
-- not the owner's, or already finished.
UPDATE analysis_task
SET status = CASE WHEN status = 'pending' THEN 'canceled' ELSE status END,
    finished_at = CASE WHEN status = 'pending' THEN coalesce(sqlc.narg('now')::timestamptz, now()) ELSE finished_at END,
    error = CASE WHEN status = 'pending' THEN 'Canceled by its owner before it started.' ELSE error END,
    cancel_requested_at = coalesce(cancel_requested_at, sqlc.narg('now')::timestamptz, now())
WHERE id = @id AND owner_user_id = @owner_user_id AND status IN ('pending', 'running')
RETURNING status,
          (CASE WHEN status = 'running' THEN pg_notify('checkup_cancel', id::text)::text ELSE '' END)::text AS notified;

-- name: MaintenanceListenTasks :exec
-- owner-exempt: LISTEN reads no table; it subscribes the worker's own connection to the wake-ups.
-- Subscribes a worker's dedicated connection to checkup_tasks: a task became pending
-- (created, re-run or handed back), so an idle worker claims at once.
LISTEN checkup_tasks;

-- name: MaintenanceListenCancels :exec
-- owner-exempt: LISTEN reads no table; it subscribes the worker's own connection to cancel requests.
-- Subscribes a worker's dedicated connection to checkup_cancel, whose payload is the id
-- of a running task whose owner asked it to stop.
LISTEN checkup_cancel;
