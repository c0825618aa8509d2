-- A task's conversations as checkpoints: each diagnosis is stored as it completes, so a
-- task that is taken over or resumed skips the ones already done.

-- name: ListConversationCheckpoints :many
-- What a task has finished so far: each conversation's diagnosis status in upload
-- order, without its messages.
SELECT seq, diagnosis_status
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY seq;

-- name: SaveConversationDiagnosis :execrows
-- Stores one conversation's diagnosis (or its isolation). Run it inside the lease's
-- transaction, so a worker that lost its lease cannot write it.
UPDATE task_conversation
SET diagnosis = @diagnosis, diagnosis_status = @diagnosis_status,
    diagnosis_pass = sqlc.narg('diagnosis_pass'), diagnosis_error = @diagnosis_error,
    diagnosed_at = coalesce(sqlc.narg('now')::timestamptz, now())
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq = @seq;
