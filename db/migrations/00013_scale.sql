-- +goose Up
-- Transcripts are stored as json, not jsonb. Nothing queries inside them: every
-- stage reads a transcript whole and decodes it in Go, and turning jsonb back into
-- text costs PostgreSQL ~170 µs per sample conversation against ~20 µs for json
-- (detoast and lz4 only), paid on every read of every conversation; an upload's COPY
-- also stops building the jsonb tree. The type change drops the column's compression
-- setting, so lz4 is set again (see 00003).
ALTER TABLE task_conversation ALTER COLUMN messages TYPE json USING messages::json;
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE task_conversation ALTER COLUMN messages SET COMPRESSION lz4;
    END IF;
END $$;
-- +goose StatementEnd

-- The findings each cluster shows as its evidence, chosen once when the clusters are
-- stored (SetClusterEvidence) instead of by ranking every finding of the task at each
-- view of its page; filled here for the tasks clustered before.
ALTER TABLE task_cluster ADD COLUMN evidence jsonb;
WITH ranked AS (
    SELECT q.*,
           row_number() OVER (
               PARTITION BY q.task_id, q.cluster_idx
               ORDER BY q.repeat, q.verified DESC, q.priority_score DESC, q.conversation_seq, q.idx) AS n
    FROM (
        SELECT tf.task_id, tf.cluster_idx, tf.conversation_seq, tf.idx, tf.title, tf.evidence, tf.priority_score,
               tf.policy, (tf.evidence @> '[{"verified": true}]') AS verified,
               row_number() OVER (
                   PARTITION BY tf.task_id, tf.cluster_idx, tf.evidence -> 0 ->> 'quote'
                   ORDER BY (tf.evidence @> '[{"verified": true}]') DESC, tf.priority_score DESC,
                            tf.conversation_seq, tf.idx) AS repeat
        FROM task_finding tf
        WHERE tf.cluster_idx IS NOT NULL
    ) q
), shown AS (
    SELECT r.task_id, r.cluster_idx,
           jsonb_agg(jsonb_build_object(
               'conversation_seq', r.conversation_seq, 'idx', r.idx, 'title', r.title, 'evidence', r.evidence,
               'policy', r.policy, 'external_id', c.external_id) ORDER BY r.n) AS evidence
    FROM ranked r
    JOIN task_conversation c ON c.task_id = r.task_id AND c.seq = r.conversation_seq
    WHERE r.n <= 3
    GROUP BY r.task_id, r.cluster_idx
)
UPDATE task_cluster cl SET evidence = shown.evidence
FROM shown WHERE cl.task_id = shown.task_id AND cl.idx = shown.cluster_idx;

-- The kept conversations by outcome label, counted by the quality checks as they keep
-- them, so the task page reads three numbers instead of counting the task's rows at
-- each view; filled here for the tasks checked before.
ALTER TABLE analysis_task
    ADD COLUMN kept_failed integer NOT NULL DEFAULT 0,
    ADD COLUMN kept_succeeded integer NOT NULL DEFAULT 0,
    ADD COLUMN kept_unlabelled integer NOT NULL DEFAULT 0;
UPDATE analysis_task t
SET kept_failed = c.failed, kept_succeeded = c.succeeded, kept_unlabelled = c.unlabelled
FROM (SELECT task_id, (count(*) FILTER (WHERE label = 'failed'))::int AS failed,
             (count(*) FILTER (WHERE label = 'succeeded'))::int AS succeeded,
             (count(*) FILTER (WHERE label IS NULL))::int AS unlabelled
      FROM task_conversation WHERE qc_status = 'kept' GROUP BY task_id) c
WHERE t.id = c.task_id;

-- +goose Down
ALTER TABLE analysis_task DROP COLUMN kept_failed, DROP COLUMN kept_succeeded, DROP COLUMN kept_unlabelled;
ALTER TABLE task_cluster DROP COLUMN evidence;
ALTER TABLE task_conversation ALTER COLUMN messages TYPE jsonb USING messages::jsonb;
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE task_conversation ALTER COLUMN messages SET COMPRESSION lz4;
    END IF;
END $$;
-- +goose StatementEnd
