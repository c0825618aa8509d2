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
