-- name: GetTaskConversation :one
SELECT * FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq = @seq;
