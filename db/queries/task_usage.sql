-- name: ListTaskUsage :many
SELECT * FROM task_usage
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY stage;

-- name: AddTaskUsage :exec
-- Adds one unit's model spend to its stage's row.
INSERT INTO task_usage AS u (task_id, owner_user_id, stage, calls, prompt_tokens, completion_tokens)
SELECT t.id, t.owner_user_id, @stage, @calls, @prompt_tokens, @completion_tokens
FROM analysis_task t
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id
ON CONFLICT (task_id, stage) DO UPDATE
SET calls = u.calls + excluded.calls,
    prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = u.completion_tokens + excluded.completion_tokens
WHERE u.owner_user_id = excluded.owner_user_id;
