-- Owner-scoped reads of a task's findings for the task page and the report.

-- name: ListTaskClusterEvidence :many
-- The findings each cluster shows as its evidence: at most @per_cluster per cluster,
-- different quotes before repeats of one already shown (reruns of one scenario often
-- say the same thing word for word), then those with a verified quote, then the most
-- urgent, with their conversation's external id.
SELECT f.cluster_idx::int AS cluster_idx, f.conversation_seq, c.external_id, f.idx, f.title, f.evidence
FROM (
    SELECT q.*,
           row_number() OVER (
               PARTITION BY q.cluster_idx
               ORDER BY q.repeat, q.verified DESC, q.priority_score DESC, q.conversation_seq, q.idx) AS n
    FROM (
        SELECT tf.cluster_idx, tf.conversation_seq, tf.idx, tf.title, tf.evidence, tf.priority_score,
               (tf.evidence @> '[{"verified": true}]') AS verified,
               row_number() OVER (
                   PARTITION BY tf.cluster_idx, tf.evidence -> 0 ->> 'quote'
                   ORDER BY (tf.evidence @> '[{"verified": true}]') DESC, tf.priority_score DESC,
                            tf.conversation_seq, tf.idx) AS repeat
        FROM task_finding tf
        WHERE tf.task_id = @task_id AND tf.owner_user_id = @owner_user_id AND tf.cluster_idx IS NOT NULL
    ) q
) f
JOIN task_conversation c
  ON c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = f.conversation_seq
WHERE f.n <= @per_cluster::int
ORDER BY f.cluster_idx, f.n;
