-- The outcome labels an owner gives on the pages or through the API (SetReviewedLabels
-- stores them), and the agents' pages.

-- name: RefreshKeptLabelCounts :execrows
-- Counts the task's kept conversations by outcome label again, after its owner gave or
-- took back labels: the report's labelled population reads the counts.
UPDATE analysis_task t
SET kept_failed = l.failed, kept_succeeded = l.succeeded, kept_unlabelled = l.unlabelled
FROM (SELECT count(*) FILTER (WHERE c.label = 'failed')::int AS failed,
             count(*) FILTER (WHERE c.label = 'succeeded')::int AS succeeded,
             count(*) FILTER (WHERE c.label IS NULL)::int AS unlabelled
      FROM task_conversation c
      WHERE c.task_id = @id AND c.owner_user_id = @owner_user_id AND c.qc_status = 'kept') AS l
WHERE t.id = @id AND t.owner_user_id = @owner_user_id
  AND (t.kept_failed, t.kept_succeeded, t.kept_unlabelled) IS DISTINCT FROM (l.failed, l.succeeded, l.unlabelled);

-- name: GetAgentDetail :one
-- One of the owner's agents with the summary of the detector that scores its runs now
-- (NULL without one).
SELECT a.id, a.name, a.created_at, m.summary AS failure_model
FROM agent a
LEFT JOIN failure_model m ON m.agent_id = a.id AND m.owner_user_id = a.owner_user_id AND m.version = a.failure_model_version
WHERE a.id = @id AND a.owner_user_id = @owner_user_id;

-- name: ListAgentTasks :many
-- The agent's latest diagnoses, newest first, at most @max_rows, with their labelled
-- conversations and the version of the detector that scored each (0 for none).
SELECT t.id, t.title, t.status, t.created_at, t.conversation_count, t.kept_failed, t.kept_succeeded,
       coalesce((t.failure_model ->> 'version')::int, 0)::int AS scored_by
FROM analysis_task t
WHERE t.agent_id = @agent_id::bigint AND t.owner_user_id = @owner_user_id AND t.kind = 'diagnosis'
ORDER BY t.created_at DESC, t.id DESC
LIMIT @max_rows;
