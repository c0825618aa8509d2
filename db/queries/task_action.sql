-- name: ListTaskActions :many
-- The task's Actions in rank order, failed candidates last in candidate order.
SELECT a.*, c.type AS cluster_type, c.title AS cluster_title, c.category AS cluster_category,
       cardinality(c.conversation_seqs)::int AS cluster_size, c.prevalence, c.severity AS cluster_severity,
       c.confidence AS cluster_confidence, c.priority_score, c.priority_parts
FROM task_action a
JOIN task_cluster c ON c.task_id = a.task_id AND c.idx = a.cluster_idx AND c.owner_user_id = a.owner_user_id
WHERE a.task_id = @task_id AND a.owner_user_id = @owner_user_id
ORDER BY a.rank NULLS LAST, a.candidate_index;
