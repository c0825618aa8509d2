-- name: ListTaskWarnings :many
SELECT * FROM task_warning
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY id
LIMIT @max_rows;

-- name: CountTaskWarnings :one
SELECT count(*) FROM task_warning
WHERE task_id = @task_id AND owner_user_id = @owner_user_id;
