-- name: ListTaskClusters :many
-- The task's issue clusters, most urgent first.
SELECT * FROM task_cluster
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY priority_score DESC, idx;

-- name: InsertTaskClusters :exec
-- A task's issue clusters, from a JSON array of rows (see pipeline.clusterRow).
INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, conversation_seqs,
                          finding_count, prevalence, severity, confidence, priority_score, priority_parts)
SELECT t.id, t.owner_user_id, (c.value ->> 'idx')::int, c.value ->> 'type', c.value ->> 'category',
       c.value ->> 'title',
       ARRAY(SELECT s::int FROM jsonb_array_elements_text(c.value -> 'conversation_seqs') AS s),
       (c.value ->> 'finding_count')::int, (c.value ->> 'prevalence')::real,
       (c.value ->> 'severity')::real, (c.value ->> 'confidence')::real,
       (c.value ->> 'priority_score')::real, c.value -> 'priority_parts'
FROM analysis_task t, jsonb_array_elements(@clusters::jsonb) AS c(value)
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id;
