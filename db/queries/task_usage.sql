-- name: ListTaskUsage :many
SELECT * FROM task_usage
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY stage;
