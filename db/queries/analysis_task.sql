-- The task table is the queue: creating a task, the worker's claim, and the fenced
-- writes of the worker that holds the lease. A fenced write carries
-- `id, owner_user_id, attempt, status = 'running'`: zero rows means the lease is lost
-- (taken over, finished or canceled) and the worker writes nothing more.

-- name: CreateTask :one
-- A new pending task. The caller copies its conversations, runs
-- SetTaskConversationCount and NotifyTaskPending in the same transaction, and commits.
INSERT INTO analysis_task (owner_user_id, title, config, source_filename, source_format,
                           source_bytes, conversation_count, language)
VALUES (@owner_user_id, @title, @config, @source_filename, @source_format,
        @source_bytes, @conversation_count, @language)
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
-- @stale (its worker was lost); with @id, that one task on the same terms, waiting
-- for a claimer that holds its row and then re-checking. attempt becomes the lease's
-- fencing token; a takeover also counts one more lost worker. At most one row: :many
-- so that "nothing to do" is an empty result rather than an error. The two ways in
-- are two CTEs, each gated by whether @id is set: a filter on @id inside the next-task
-- scan would make PostgreSQL's generic plan look dearer than a custom one and replan
-- every claim.
WITH next_task AS MATERIALIZED (
    SELECT id, status AS prior_status
    FROM analysis_task
    WHERE sqlc.narg('id')::uuid IS NULL
      AND (status = 'pending'
           OR (status = 'running' AND heartbeat_at < coalesce(sqlc.narg('now')::timestamptz, now()) - @stale::interval))
    ORDER BY created_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
), named_task AS MATERIALIZED (
    SELECT id, status AS prior_status
    FROM analysis_task
    WHERE id = sqlc.narg('id')::uuid
      AND (status = 'pending'
           OR (status = 'running' AND heartbeat_at < coalesce(sqlc.narg('now')::timestamptz, now()) - @stale::interval))
    FOR UPDATE
), candidate AS (
    SELECT * FROM next_task
    UNION ALL
    SELECT * FROM named_task
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
          t.conversation_count, t.created_at, t.claimed_at, t.cancel_requested_at, t.kind, t.agent_id,
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

-- The diagnosis pipeline's writes to its task row. Each runs inside the lease's
-- transaction, after its fenced touch has locked the row, and is fenced again itself:
-- a worker that lost its lease changes nothing. None touches heartbeat_at; the
-- transaction's touch did.

-- name: SetTaskRunConfig :execrows
-- The analyzer and limits this run works with (pipeline.TaskConfig).
UPDATE analysis_task SET config = @config
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskFunnel :execrows
-- The population the quality checks defined, with the kept conversations by outcome
-- label.
UPDATE analysis_task
SET funnel = @funnel, kept_failed = @kept_failed, kept_succeeded = @kept_succeeded, kept_unlabelled = @kept_unlabelled
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskLabelCheck :execrows
-- How the analysis agrees with the outcome labels, stored with the clusters.
UPDATE analysis_task SET label_check = @label_check
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskRiskSummary :execrows
UPDATE analysis_task SET risk_summary = @risk_summary
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskProviderDown :execrows
-- Since when the model provider has not answered, NULL once it answers again: the task
-- page says the task waits for it.
UPDATE analysis_task SET provider_down_since = sqlc.narg('since')::timestamptz
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskStage :execrows
-- The stage and its progress, written with the checkpoint that reached it.
UPDATE analysis_task
SET stage = @stage, progress_done = @progress_done, progress_total = @progress_total
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: CountTaskUnit :one
-- One finished unit other than a stored diagnosis (StoreConversationDiagnoses counts
-- those): the stage's progress, the task's model spend and, for a conversation that
-- could not be diagnosed, the isolated count. cancel_requested tells the worker, as a
-- heartbeat would, that the owner asked the task to stop.
WITH counted AS (
    UPDATE analysis_task
    SET progress_done = progress_done + 1,
        llm_calls = llm_calls + @calls,
        prompt_tokens = prompt_tokens + @prompt_tokens,
        completion_tokens = completion_tokens + @completion_tokens,
        isolated = isolated + @isolated
    WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running'
    RETURNING cancel_requested_at
)
SELECT count(*)::int AS counted,
       coalesce(bool_or(cancel_requested_at IS NOT NULL), false)::boolean AS cancel_requested
FROM counted;

-- Re-running a task: a new pending task from the same conversations.

-- name: LockOwner :exec
-- Serialises one kind (@lock_class) of the owner's writes until the end of the
-- transaction: their new tasks (uploads being published and re-runs), so two at once
-- cannot both pass CountUnfinishedTasks, or their reviews, so two marks at once cannot
-- store rules that say the opposite of each other. Owners whose ids meet modulo
-- 2^31-1 share a lock, which only makes one wait for the other. Reads no table.
SELECT pg_advisory_xact_lock(@lock_class::int, mod(@owner_user_id::bigint, 2147483647)::int);

-- name: CountUnfinishedTasks :one
-- The owner's tasks still waiting or running other than @except (the task an upload is
-- publishing, visible to its own transaction), and how many of them are re-runs (the
-- partial index analysis_task_owner_unfinished).
SELECT count(*)::int AS unfinished, (count(*) FILTER (WHERE rerun_of IS NOT NULL))::int AS reruns
FROM analysis_task
WHERE owner_user_id = @owner_user_id AND status IN ('pending', 'running') AND kind = 'diagnosis'
  AND id IS DISTINCT FROM sqlc.narg('except')::uuid;

-- name: RerunAnalysisTask :one
-- Creates a pending task with the source task's title, source and conversations, their
-- outcome labels included (not its results), and wakes the workers, in one statement
-- and so one transaction: the new task is never visible without its conversations. No
-- row means the source task does not exist for this owner.
WITH source AS (
    SELECT t.id, t.owner_user_id, t.title, t.conversation_count, t.source_filename, t.source_format, t.source_bytes,
           t.label_field, t.agent_id, t.language
    FROM analysis_task t
    WHERE t.id = @id AND t.owner_user_id = @owner_user_id AND t.kind = 'diagnosis'
), created AS (
    INSERT INTO analysis_task (owner_user_id, title, conversation_count, source_filename,
                               source_format, source_bytes, label_field, rerun_of, agent_id, language)
    SELECT s.owner_user_id, s.title, s.conversation_count, s.source_filename, s.source_format, s.source_bytes,
           s.label_field, s.id, s.agent_id, s.language
    FROM source s
    RETURNING id, owner_user_id
), copied AS (
    INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, metadata, message_count, label,
                                   label_source, reviewed_label, reviewed_by, reviewed_at, turns, user_turns, tool_calls)
    SELECT created.id, tc.owner_user_id, tc.seq, tc.external_id, tc.messages, tc.metadata, tc.message_count, tc.label,
           tc.label_source, tc.reviewed_label, tc.reviewed_by, tc.reviewed_at, tc.turns, tc.user_turns, tc.tool_calls
    FROM created
    JOIN task_conversation tc ON tc.task_id = @id AND tc.owner_user_id = created.owner_user_id
    WHERE tc.owner_user_id = @owner_user_id
    RETURNING 1
)
SELECT created.id, (SELECT count(*) FROM copied)::int AS conversations,
       pg_notify('checkup_tasks', created.id::text)::text AS notified
FROM created;

-- name: FindEarlierUpload :many
-- The owner's latest upload before task @id (re-runs aside, which are asked for) of a
-- file with the same name and size as @id's, which is most likely the same file sent
-- again. A file without a name matches nothing.
SELECT t.created_at
FROM analysis_task this
JOIN analysis_task t ON t.owner_user_id = this.owner_user_id AND t.source_filename = this.source_filename
                    AND t.source_bytes = this.source_bytes AND t.id <> this.id
                    AND t.rerun_of IS NULL AND t.created_at <= this.created_at
WHERE this.id = @id AND this.owner_user_id = @owner_user_id AND this.source_filename <> ''
ORDER BY t.created_at DESC
LIMIT 1;

-- Owner-scoped reads and deletes of tasks for the pages and downloads.

-- name: GetAnalysisTask :one
-- A diagnosis of the owner's (a learning task is the queue's, never a page's).
SELECT * FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id AND kind = 'diagnosis';

-- name: GetAnalysisTaskState :one
-- What the API shows of a task: the row without its stored JSON (configuration,
-- funnel, risk summary, label check) but the summary of the detector that scored it,
-- with its agent's name, so a script's poll reads only narrow columns.
SELECT t.id, t.title, t.status, t.stage, t.progress_done, t.progress_total, t.attempt, t.lost_count, t.isolated,
       t.conversation_count, t.created_at, t.finished_at, t.cancel_requested_at, t.provider_down_since, t.error,
       t.rerun_of, t.source_filename, t.source_format, t.source_bytes, t.label_field, t.agent_id, t.failure_model,
       coalesce((SELECT a.name FROM agent a WHERE a.id = t.agent_id AND a.owner_user_id = t.owner_user_id), '')::text AS agent_name
FROM analysis_task t WHERE t.id = @id AND t.owner_user_id = @owner_user_id AND t.kind = 'diagnosis';

-- name: LockTaskForReview :one
-- Locks a task its owner reviews (marks a cluster expected, or takes the mark back)
-- for the review's transaction, so two reviews of one task re-rank its Actions one
-- after the other; its status says whether it has finished, its agent which of the
-- owner's rules apply to it.
SELECT status, agent_id FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id FOR NO KEY UPDATE;

-- name: GetAnalysisProgress :one
-- What the polling fragment shows: a primary-key lookup, nothing else.
SELECT id, status, stage, progress_done, progress_total, attempt, lost_count, error,
       cancel_requested_at, finished_at, provider_down_since
FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id AND kind = 'diagnosis';

-- name: ListAnalysisTasks :many
-- The owner's diagnoses newest first, keyset-paginated on (created_at, id): pass the
-- last row of the previous page, or nulls for the first page. Each names its agent.
SELECT t.id, t.title, t.status, t.stage, t.progress_done, t.progress_total, t.attempt, t.lost_count,
       t.conversation_count, t.isolated, t.created_at, t.finished_at, t.source_filename,
       (t.rerun_of IS NOT NULL)::boolean AS rerun, coalesce(a.name, '')::text AS agent_name, t.agent_id
FROM analysis_task t
LEFT JOIN agent a ON a.id = t.agent_id AND a.owner_user_id = t.owner_user_id
WHERE t.owner_user_id = @owner_user_id AND t.kind = 'diagnosis'
  AND (sqlc.narg('before_created_at')::timestamptz IS NULL
       OR (t.created_at, t.id) < (sqlc.narg('before_created_at')::timestamptz, sqlc.narg('before_id')::uuid))
ORDER BY t.created_at DESC, t.id DESC
LIMIT @max_rows;

-- name: DeleteAnalysisTask :many
-- Deletes the diagnosis and, through the foreign keys, all its rows. No row means 404;
-- the row names the agent, and whether the run had labels its detector learned from.
DELETE FROM analysis_task t WHERE t.id = @id AND t.owner_user_id = @owner_user_id AND t.kind = 'diagnosis'
RETURNING t.agent_id, EXISTS (SELECT 1 FROM task_conversation c
                              WHERE c.task_id = t.id AND c.owner_user_id = t.owner_user_id AND c.label IS NOT NULL)::boolean AS labelled;

-- What /metrics reads from the task table at scrape time.

-- name: MaintenanceTaskCounts :many
-- owner-exempt: /metrics counts every owner's tasks by status for the operator; it returns counts, never a task.
-- Tasks by status, and among the running ones those whose heartbeat is older than
-- @stale: their worker is lost and they wait for a takeover, so with the pending ones
-- they are the queue's depth. One pass over the table.
SELECT status,
       count(*)::bigint AS tasks,
       count(*) FILTER (WHERE status = 'running'
                          AND heartbeat_at < coalesce(sqlc.narg('now')::timestamptz, now()) - @stale::interval)::bigint AS stale
FROM analysis_task
GROUP BY status;

-- Retention (RETENTION_DAYS): finished tasks older than the limit are deleted with
-- their rows, every owner's alike, in batches, by one instance at a time.

-- name: PurgeTryLock :one
-- Takes the retention lock until the end of the transaction unless another instance
-- holds it; false means another instance is purging now. A transaction-level lock
-- cannot outlive its batch, even on a broken connection or behind PgBouncer in
-- transaction mode.
SELECT pg_try_advisory_xact_lock(@lock_id::bigint)::boolean AS locked;

-- name: PurgeFinishedTasks :execrows
-- owner-exempt: retention deletes every owner's finished tasks older than RETENTION_DAYS; their child rows go with them by the cascade.
-- At most @batch_size tasks that finished more than @days days ago, oldest first (the
-- partial index on finished_at); a running or pending task has no finished_at and is
-- never touched. Rows locked by a concurrent delete are skipped, not waited for.
DELETE FROM analysis_task
WHERE id IN (
    SELECT id
    FROM analysis_task
    WHERE finished_at < coalesce(sqlc.narg('now')::timestamptz, now()) - make_interval(days => @days::int)
      AND status IN ('completed', 'partial', 'insufficient_data', 'failed', 'canceled')
    ORDER BY finished_at
    LIMIT @batch_size::int
    FOR UPDATE SKIP LOCKED
);

-- Runs of one title: what a diagnosis is compared with, and the task list's trends.

-- name: ListCompareCandidates :many
-- The owner's finished diagnoses with results that task @id can be compared with:
-- those with its title first (re-runs keep the title), then the others, each newest
-- first, each with its agent's name (empty for a run without one), which the picker
-- groups them by. Both halves read an index in order and stop at @max_rows.
WITH same_title AS MATERIALIZED (
    SELECT s.id, s.title, s.status, s.created_at, s.finished_at, s.conversation_count, s.rerun_of, s.agent_id, true AS same_title
    FROM analysis_task s
    WHERE s.owner_user_id = @owner_user_id AND s.title = @title AND s.id <> @id AND s.status IN ('completed', 'partial')
      AND s.kind = 'diagnosis'
    ORDER BY s.created_at DESC
    LIMIT @max_rows
), other_title AS MATERIALIZED (
    SELECT o.id, o.title, o.status, o.created_at, o.finished_at, o.conversation_count, o.rerun_of, o.agent_id, false AS same_title
    FROM analysis_task o
    WHERE o.owner_user_id = @owner_user_id AND o.title <> @title AND o.status IN ('completed', 'partial')
      AND o.kind = 'diagnosis'
    ORDER BY o.created_at DESC
    LIMIT @max_rows
)
SELECT c.id, c.title, c.status, c.created_at, c.finished_at, c.conversation_count, c.rerun_of, c.agent_id, c.same_title,
       coalesce(a.name, '')::text AS agent_name
FROM (SELECT * FROM same_title UNION ALL SELECT * FROM other_title) AS c
LEFT JOIN agent a ON a.id = c.agent_id AND a.owner_user_id = @owner_user_id
ORDER BY c.same_title DESC, c.created_at DESC
LIMIT @max_rows;

-- name: ListTitleRuns :many
-- For each of the owner's tasks @ids, its title's finished runs with results up to
-- and including it, at most @per_task of the latest, oldest first: the points of its
-- trend on the task list.
SELECT p.id AS task_id, r.id AS run_id, r.created_at
FROM analysis_task p
CROSS JOIN LATERAL (
    SELECT q.id, q.created_at
    FROM analysis_task q
    WHERE q.owner_user_id = p.owner_user_id AND q.title = p.title AND q.created_at <= p.created_at
      AND q.status IN ('completed', 'partial') AND q.kind = 'diagnosis'
    ORDER BY q.created_at DESC
    LIMIT @per_task::int
) AS r
WHERE p.owner_user_id = @owner_user_id AND p.id = ANY(@ids::uuid[])
ORDER BY p.id, r.created_at;

-- name: ListenProgress :exec
-- Subscribes an instance's dedicated connection to checkup_progress, on which the
-- changes to what a running task's progress shows are announced (the trigger of
-- migration 00015; a moved count at most once a second): the row's shown columns as
-- JSON, or only its id.
LISTEN checkup_progress;

-- name: SetTaskFailureModel :execrows
-- Records the detector that scored the task (its summary as report.json shows it), or
-- NULL when none did.
UPDATE analysis_task SET failure_model = @failure_model
WHERE id = @id AND owner_user_id = @owner_user_id;

-- name: SetRescoredTask :execrows
-- What scoring a finished task again changes on its row: how the analysis agrees with
-- the labels (NULL without any), the detector that scored it (NULL for none), and the
-- kept conversations' counts by outcome label.
UPDATE analysis_task t
SET label_check = @label_check, failure_model = @failure_model,
    kept_failed = l.failed, kept_succeeded = l.succeeded, kept_unlabelled = l.unlabelled
FROM (SELECT count(*) FILTER (WHERE c.label = 'failed')::int AS failed,
             count(*) FILTER (WHERE c.label = 'succeeded')::int AS succeeded,
             count(*) FILTER (WHERE c.label IS NULL)::int AS unlabelled
      FROM task_conversation c
      WHERE c.task_id = @id AND c.owner_user_id = @owner_user_id AND c.qc_status = 'kept') AS l
WHERE t.id = @id AND t.owner_user_id = @owner_user_id;
