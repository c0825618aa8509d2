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
