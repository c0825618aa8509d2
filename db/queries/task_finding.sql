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

-- name: ListFindingsForClustering :many
-- What clustering reads of every finding of the diagnosed conversations, in a stable
-- order: no evidence, and the description only of the first finding with each title,
-- so a large task stays small in memory.
SELECT f.conversation_seq, f.idx, f.type, f.category, f.title, f.severity, f.confidence, f.expected,
       CASE WHEN row_number() OVER (PARTITION BY f.type, f.category, f.expected, f.title
                                    ORDER BY f.conversation_seq, f.idx) = 1
            THEN f.description ELSE '' END::text AS description
FROM task_finding f
JOIN task_conversation c
  ON c.task_id = f.task_id AND c.owner_user_id = f.owner_user_id AND c.seq = f.conversation_seq
WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id AND c.diagnosis_status = 'done'
ORDER BY f.conversation_seq, f.idx;

-- name: SetFindingClusters :execrows
-- Assigns a batch of findings to their clusters.
UPDATE task_finding f
SET cluster_idx = v.cluster_idx
FROM (SELECT unnest(@seqs::int[]) AS seq, unnest(@idxs::int[]) AS idx,
             unnest(@cluster_idxs::int[]) AS cluster_idx) AS v
WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id
  AND f.conversation_seq = v.seq AND f.idx = v.idx;

-- name: ListClusterExamples :many
-- The findings the Actions of the clusters @cluster_idxs are written from, cluster by
-- cluster: for each at most @max_rows, those with a verified quote first, then the most
-- urgent, with their conversation's external id.
WITH ranked AS (
    SELECT f.cluster_idx, f.conversation_seq, c.external_id, f.idx, f.title, f.description, f.evidence,
           row_number() OVER (PARTITION BY f.cluster_idx
                              ORDER BY (f.evidence @> '[{"verified": true}]') DESC, f.priority_score DESC,
                                       f.conversation_seq, f.idx) AS n
    FROM task_finding f
    JOIN task_conversation c
      ON c.task_id = f.task_id AND c.owner_user_id = f.owner_user_id AND c.seq = f.conversation_seq
    WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id AND f.cluster_idx = ANY(@cluster_idxs::int[])
)
SELECT cluster_idx::int AS cluster_idx, conversation_seq, external_id, idx, title, description, evidence
FROM ranked
WHERE n <= @max_rows::bigint
ORDER BY cluster_idx, n;

-- Owner-scoped reads of a task's findings for the task page and the report.

-- name: ListTaskClusterEvidence :many
-- The findings each cluster shows as its evidence: at most @per_cluster per cluster,
-- different quotes before repeats of one already shown (reruns of one scenario often
-- say the same thing word for word), then those with a verified quote, then the most
-- urgent, with their conversation's external id.
SELECT f.cluster_idx::int AS cluster_idx, f.conversation_seq, c.external_id, f.idx, f.title, f.evidence, f.policy
FROM (
    SELECT q.*,
           row_number() OVER (
               PARTITION BY q.cluster_idx
               ORDER BY q.repeat, q.verified DESC, q.priority_score DESC, q.conversation_seq, q.idx) AS n
    FROM (
        SELECT tf.cluster_idx, tf.conversation_seq, tf.idx, tf.title, tf.evidence, tf.priority_score, tf.policy,
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
