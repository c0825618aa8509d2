-- name: ListTaskFindings :many
-- The findings of one page of conversations, (@after_seq, @through_seq], with their
-- conversation's external id (looked up by key per finding, so no plan joins every
-- finding with every conversation), in conversation order.
SELECT f.*,
       coalesce((SELECT c.external_id FROM task_conversation c
                 WHERE c.task_id = f.task_id AND c.owner_user_id = f.owner_user_id AND c.seq = f.conversation_seq), '')::text AS external_id
FROM task_finding f
WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id
  AND f.conversation_seq > @after_seq AND f.conversation_seq <= @through_seq
ORDER BY f.conversation_seq, f.idx;

-- name: ListConversationFindings :many
SELECT * FROM task_finding
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND conversation_seq = @seq
ORDER BY idx;

-- name: ListFindingsForClustering :many
-- What clustering reads of the findings of one page of conversations, in (seq, idx)
-- order, without evidence: conversations (@after_seq, @through_seq], as the pipeline's
-- pages of conversations (see task_conversation.sql). Only a diagnosed conversation has
-- findings.
SELECT conversation_seq, idx, type, category, title, severity, confidence, expected, description
FROM task_finding
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
  AND conversation_seq > @after_seq AND conversation_seq <= @through_seq
ORDER BY conversation_seq, idx;

-- name: ListFindingTitles :many
-- Every distinct title of the task's findings with its type, category and whether it
-- is expected behaviour, in the order of each one's first finding: the first pass of
-- clustering, which places the titles before it reads the findings again, with the
-- title's Text when its findings keep one. One scan of the task's findings, no join.
SELECT type, category, expected, title,
       ((array_agg(text -> 'title') FILTER (WHERE text IS NOT NULL))[1])::jsonb AS title_text
FROM task_finding
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
GROUP BY type, category, expected, title
ORDER BY min((conversation_seq::bigint << 32) | idx);

-- name: SetFindingClusters :execrows
-- Assigns every finding of the task to its cluster: @clusters maps
-- type, category, expected and title, joined by the unit separator, to the cluster's
-- index. A lookup in one value, not a join, so each finding costs the same whatever
-- plan PostgreSQL makes of a task it has no statistics for yet.
UPDATE task_finding f
SET cluster_idx = (@clusters::jsonb ->> (f.type || chr(31) || f.category || chr(31) || f.expected::text || chr(31) || f.title))::int
WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id;

-- name: ListClusterExamples :many
-- The findings the Actions of the clusters @cluster_idxs are written from, cluster by
-- cluster: for each at most @max_rows of its clear cases (severity at most one below
-- the cluster's most severe finding: a borderline case proves little beside a clear
-- one), those the cluster shows as its evidence first, in its order (SetClusterEvidence:
-- the Action's first example is the card's), then those with a verified quote in words
-- (not only a serialized tool call), then with a verified quote, then the most urgent,
-- with their conversation's external
-- id (looked up by primary key for the rows returned only, so no plan can join every
-- finding with every conversation).
WITH clear AS (
    SELECT f.*
    FROM (SELECT tf.*, max(tf.severity) OVER (PARTITION BY tf.cluster_idx) AS top
          FROM task_finding tf
          WHERE tf.task_id = @task_id AND tf.owner_user_id = @owner_user_id AND tf.cluster_idx = ANY(@cluster_idxs::int[])) f
    WHERE f.severity >= f.top - 1
), ranked AS (
    SELECT f.cluster_idx, f.conversation_seq, f.idx, f.title, f.description, f.text, f.evidence,
           row_number() OVER (PARTITION BY f.cluster_idx
                              ORDER BY shown.n NULLS LAST,
                                       jsonb_path_exists(f.evidence, '$[*] ? (@.verified == true && !(@.speaker == "call"))') DESC,
                                       (f.evidence @> '[{"verified": true}]') DESC, f.priority_score DESC,
                                       f.conversation_seq, f.idx) AS n
    FROM clear f
    LEFT JOIN LATERAL (
        SELECT e.n
        FROM task_cluster cl, jsonb_array_elements(cl.evidence) WITH ORDINALITY AS e(value, n)
        WHERE cl.task_id = @task_id AND cl.owner_user_id = @owner_user_id AND cl.idx = f.cluster_idx
          AND (e.value ->> 'conversation_seq')::int = f.conversation_seq AND (e.value ->> 'idx')::int = f.idx
    ) shown ON true
)
SELECT r.cluster_idx::int AS cluster_idx, r.conversation_seq,
       coalesce((SELECT c.external_id FROM task_conversation c
                 WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = r.conversation_seq), '')::text AS external_id,
       r.idx, r.title, r.description, r.text, r.evidence
FROM ranked r
WHERE r.n <= @max_rows::bigint
ORDER BY r.cluster_idx, r.n;

-- name: SetClusterEvidence :execrows
-- Chooses, once the findings have their clusters, the findings each cluster shows as
-- its evidence and stores them on the cluster (task_cluster.evidence), so the task page
-- reads them instead of ranking every finding of the task at each view: at most
-- @per_cluster per cluster, of its clear cases (severity at most one below the
-- cluster's most severe finding), never a near-copy of another (the same first quote
-- and an exchange that ends the same way: a rerun of one case), different quotes
-- before repeats of one already shown (reruns of one scenario often say the same
-- thing word for word), then conversations
-- not already shown under a cluster ranked above (@rank_order lists the clusters' idx
-- in the order the Actions are ranked: a PM reads each conversation once), then those
-- with a verified quote in words (not only a serialized tool call), the most severe,
-- those with a verified quote, then the most urgent, each with its conversation's
-- external id.
WITH candidates AS (
    SELECT q.*,
           coalesce(array_position(@rank_order::int[], q.cluster_idx), cardinality(@rank_order::int[]) + 1) AS rank,
           row_number() OVER (
               PARTITION BY q.cluster_idx
               ORDER BY q.repeat, q.spoken DESC, q.severity DESC, q.verified DESC, q.priority_score DESC,
                        q.conversation_seq, q.idx) AS alone
    FROM (
        SELECT tf.cluster_idx, tf.conversation_seq, tf.idx, tf.title, tf.description, tf.text, tf.evidence,
               tf.severity, tf.priority_score, tf.policy,
               jsonb_path_exists(tf.evidence, '$[*] ? (@.verified == true && !(@.speaker == "call"))') AS spoken,
               (tf.evidence @> '[{"verified": true}]') AS verified,
               row_number() OVER (
                   PARTITION BY tf.cluster_idx, tf.evidence -> 0 ->> 'quote'
                   ORDER BY (tf.evidence @> '[{"verified": true}]') DESC, tf.priority_score DESC,
                            tf.conversation_seq, tf.idx) AS repeat,
               row_number() OVER (
                   PARTITION BY tf.cluster_idx, tf.evidence -> 0 ->> 'quote', tf.ending
                   ORDER BY (tf.evidence @> '[{"verified": true}]') DESC, tf.priority_score DESC,
                            tf.conversation_seq, tf.idx) AS copy
        FROM (SELECT f.*, max(f.severity) OVER (PARTITION BY f.cluster_idx) AS top,
                     -- How the finding's exchange ends, without spaces and marks: a
                     -- rerun that ends as another did (the same reply, the same error)
                     -- is a near-copy of it.
                     right(regexp_replace(lower((SELECT string_agg(e ->> 'quote', ' ' ORDER BY n)
                                                 FROM jsonb_array_elements(f.evidence) WITH ORDINALITY AS x(e, n))),
                                          '[[:space:][:punct:]]+', '', 'g'), 60) AS ending
              FROM task_finding f
              WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id AND f.cluster_idx IS NOT NULL) tf
        WHERE tf.severity >= tf.top - 1
    ) q
), first_shown AS (
    -- The highest-ranked cluster each conversation would be shown under, each cluster
    -- choosing alone.
    SELECT conversation_seq, min(rank) AS rank
    FROM candidates
    WHERE alone <= @per_cluster::int AND copy = 1
    GROUP BY conversation_seq
), ranked AS (
    SELECT c.*,
           row_number() OVER (
               PARTITION BY c.cluster_idx
               ORDER BY c.repeat, coalesce(f.rank < c.rank, false), c.spoken DESC, c.severity DESC, c.verified DESC,
                        c.priority_score DESC, c.conversation_seq, c.idx) AS n
    FROM candidates c LEFT JOIN first_shown f USING (conversation_seq)
    WHERE c.copy = 1
), shown AS (
    SELECT r.cluster_idx,
           jsonb_agg(jsonb_build_object(
               'conversation_seq', r.conversation_seq, 'idx', r.idx, 'title', r.title, 'evidence', r.evidence,
               'policy', r.policy, 'description', r.description, 'text', r.text,
               'external_id', coalesce((SELECT c.external_id FROM task_conversation c
                                        WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id
                                          AND c.seq = r.conversation_seq), ''))
               ORDER BY r.n) AS evidence
    FROM ranked r
    WHERE r.n <= @per_cluster::int
    GROUP BY r.cluster_idx
)
UPDATE task_cluster cl
SET evidence = shown.evidence
FROM shown
WHERE cl.task_id = @task_id AND cl.owner_user_id = @owner_user_id AND cl.idx = shown.cluster_idx;

-- Owner-scoped reads of a task's findings for the task page and the report.

-- name: ListTaskClusterEvidence :many
-- The findings each cluster shows as its evidence, as SetClusterEvidence chose them, in
-- the order they are shown, each with its description (empty, and no text, for a
-- cluster stored before examples carried it).
SELECT cl.idx AS cluster_idx, (e.value ->> 'conversation_seq')::int AS conversation_seq,
       (e.value ->> 'external_id')::text AS external_id, (e.value ->> 'idx')::int AS idx,
       (e.value ->> 'title')::text AS title, (e.value -> 'evidence')::jsonb AS evidence,
       (e.value ->> 'policy')::text AS policy,
       coalesce(e.value ->> 'description', '')::text AS description, (e.value -> 'text')::jsonb AS text
FROM task_cluster cl, jsonb_array_elements(cl.evidence) WITH ORDINALITY AS e(value, n)
WHERE cl.task_id = @task_id AND cl.owner_user_id = @owner_user_id
ORDER BY cl.idx, e.n;
