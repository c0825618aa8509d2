-- name: ListTaskClusters :many
-- The task's issue clusters, most urgent first.
SELECT * FROM task_cluster
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY priority_score DESC, idx;
