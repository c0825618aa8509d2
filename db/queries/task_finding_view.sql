-- Owner-scoped reads of a task's findings for the task page and the report.

-- name: ListTaskClusterEvidence :many
-- The findings each cluster shows as its evidence: at most @per_cluster per cluster,
-- those with a verified quote first, then the most urgent, with their conversation's
-- external id.
SELECT f.cluster_idx::int AS cluster_idx, f.conversation_seq, c.external_id, f.idx, f.title, f.evidence
FROM (
    SELECT tf.cluster_idx, tf.conversation_seq, tf.idx, tf.title, tf.evidence,
           row_number() OVER (
               PARTITION BY tf.cluster_idx
               ORDER BY (tf.evidence @> '[{"verified": true}]') DESC, tf.priority_score DESC,
                        tf.conversation_seq, tf.idx) AS n
    FROM task_finding tf
    WHERE tf.task_id = @task_id AND tf.owner_user_id = @owner_user_id AND tf.cluster_idx IS NOT NULL
) f
JOIN task_conversation c
  ON c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = f.conversation_seq
WHERE f.n <= @per_cluster::int
ORDER BY f.cluster_idx, f.n;
