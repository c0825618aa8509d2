-- Re-running a task: a new pending task from the same conversations.

-- name: RerunAnalysisTask :one
-- Creates a pending task with the source task's title, source and conversations, their
-- outcome labels included (not its results), and wakes the workers, in one statement
-- and so one transaction: the new task is never visible without its conversations. No
-- row means the source task does not exist for this owner.
WITH source AS (
    SELECT t.id, t.owner_user_id, t.title, t.conversation_count, t.source_filename, t.source_format, t.source_bytes,
           t.label_field
    FROM analysis_task t
    WHERE t.id = @id AND t.owner_user_id = @owner_user_id
), created AS (
    INSERT INTO analysis_task (owner_user_id, title, conversation_count, source_filename,
                               source_format, source_bytes, label_field, rerun_of)
    SELECT s.owner_user_id, s.title, s.conversation_count, s.source_filename, s.source_format, s.source_bytes,
           s.label_field, s.id
    FROM source s
    RETURNING id, owner_user_id
), copied AS (
    INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, metadata, message_count, label)
    SELECT created.id, tc.owner_user_id, tc.seq, tc.external_id, tc.messages, tc.metadata, tc.message_count, tc.label
    FROM created
    JOIN task_conversation tc ON tc.task_id = @id AND tc.owner_user_id = created.owner_user_id
    WHERE tc.owner_user_id = @owner_user_id
    RETURNING 1
)
SELECT created.id, (SELECT count(*) FROM copied)::int AS conversations,
       pg_notify('checkup_tasks', created.id::text)::text AS notified
FROM created;
