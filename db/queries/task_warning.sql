-- name: ListTaskWarnings :many
-- The task's warnings in the order they were made, @max_rows of them after the one
-- with id @after_id (0 for the first).
SELECT * FROM task_warning
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND id > @after_id
ORDER BY id
LIMIT @max_rows;

-- name: CountTaskWarnings :one
SELECT count(*) FROM task_warning
WHERE task_id = @task_id AND owner_user_id = @owner_user_id;

-- name: InsertTaskWarning :exec
-- A warning shown to the task's owner: a unit that failed or something the worker
-- changed, with the stage and the unit (scope) it is about, in English and, where the
-- writer kept them, as catalog messages (NULL otherwise).
INSERT INTO task_warning (task_id, owner_user_id, stage, scope, message, scope_text, message_text)
VALUES (@task_id, @owner_user_id, @stage, @scope, @message, @scope_text, @message_text);
