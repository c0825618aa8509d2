-- Owner-scoped reads and deletes of tasks for the pages and downloads.

-- name: GetAnalysisTask :one
SELECT * FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id;

-- name: GetAnalysisProgress :one
-- What the polling fragment shows: a primary-key lookup, nothing else.
SELECT id, status, stage, progress_done, progress_total, attempt, lost_count, error,
       cancel_requested_at, finished_at, provider_down_since
FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id;

-- name: ListAnalysisTasks :many
-- The owner's tasks newest first, keyset-paginated on (created_at, id): pass the last
-- row of the previous page, or nulls for the first page.
SELECT id, title, status, stage, progress_done, progress_total, attempt, lost_count,
       conversation_count, isolated, created_at, finished_at, source_filename, (rerun_of IS NOT NULL)::boolean AS rerun
FROM analysis_task
WHERE owner_user_id = @owner_user_id
  AND (sqlc.narg('before_created_at')::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg('before_created_at')::timestamptz, sqlc.narg('before_id')::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: DeleteAnalysisTask :execrows
-- Deletes the task and, through the foreign keys, all its rows. Zero rows means 404.
DELETE FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id;
