-- name: ListTaskFindings :many
-- Every finding of the task with its conversation's external id, in conversation order.
SELECT f.*, c.external_id
FROM task_finding f
JOIN task_conversation c ON c.task_id = f.task_id AND c.seq = f.conversation_seq AND c.owner_user_id = f.owner_user_id
WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id
ORDER BY f.conversation_seq, f.idx;

-- name: ListConversationFindings :many
SELECT * FROM task_finding
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND conversation_seq = @seq
ORDER BY idx;
