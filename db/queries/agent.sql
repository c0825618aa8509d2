-- An owner's agents: every diagnosis belongs to one, and each may have a failure
-- detector trained from its labelled conversations.

-- name: ListAgentPrompts :many
-- The owner's agents with the system prompt of each one's latest run: what an upload
-- without an agent's name is matched against.
SELECT id, name, system_prompt
FROM agent
WHERE owner_user_id = @owner_user_id
ORDER BY id;

-- name: UpsertAgent :one
-- The owner's agent named @name, made when it does not exist yet; its system prompt
-- becomes @system_prompt when that is not empty (the latest run's).
INSERT INTO agent (owner_user_id, name, system_prompt)
VALUES (@owner_user_id, @name, @system_prompt)
ON CONFLICT (owner_user_id, name)
DO UPDATE SET system_prompt = CASE WHEN EXCLUDED.system_prompt = '' THEN agent.system_prompt ELSE EXCLUDED.system_prompt END
WHERE agent.owner_user_id = @owner_user_id
RETURNING id;

-- name: SetTaskAgent :execrows
-- Puts the task an upload is publishing under its agent.
UPDATE analysis_task SET agent_id = @agent_id
WHERE id = @id AND owner_user_id = @owner_user_id;

-- name: GetAgent :one
SELECT a.id, a.name, a.failure_model_version, a.created_at
FROM agent a
WHERE a.id = @id AND a.owner_user_id = @owner_user_id;

-- name: ListAgents :many
-- The owner's agents, newest first, with their runs and the summary of the detector
-- that scores them now (NULL without one).
SELECT a.id, a.name, a.failure_model_version, a.created_at,
       (SELECT count(*) FROM analysis_task t
        WHERE t.agent_id = a.id AND t.owner_user_id = a.owner_user_id AND t.kind = 'diagnosis')::int AS runs,
       coalesce((SELECT max(t.created_at) FROM analysis_task t
                 WHERE t.agent_id = a.id AND t.owner_user_id = a.owner_user_id AND t.kind = 'diagnosis'),
                a.created_at)::timestamptz AS last_run_at,
       m.summary AS failure_model
FROM agent a
LEFT JOIN failure_model m ON m.agent_id = a.id AND m.owner_user_id = a.owner_user_id AND m.version = a.failure_model_version
WHERE a.owner_user_id = @owner_user_id
ORDER BY a.created_at DESC, a.id DESC;

-- name: CountAgentLabels :one
-- How many of the agent's kept, diagnosed conversations carry each outcome label: what
-- a detector is trained from, and what the pages count towards its minimum.
SELECT count(*) FILTER (WHERE c.label = 'failed')::int AS failed,
       count(*) FILTER (WHERE c.label = 'succeeded')::int AS succeeded,
       count(DISTINCT c.task_id)::int AS runs
FROM analysis_task t
JOIN task_conversation c ON c.task_id = t.id AND c.owner_user_id = t.owner_user_id
WHERE t.agent_id = @agent_id::bigint AND t.owner_user_id = @owner_user_id AND t.kind = 'diagnosis'
  AND c.label IS NOT NULL AND c.qc_status = 'kept' AND c.diagnosis_status = 'done';

-- name: ListAgentRuns :many
-- The agent's diagnoses, the latest first: its detector learns from their labelled
-- conversations, the latest runs' first.
SELECT id, created_at
FROM analysis_task
WHERE agent_id = @agent_id::bigint AND owner_user_id = @owner_user_id AND kind = 'diagnosis'
ORDER BY created_at DESC, id DESC;

-- name: ListTrainingConversations :many
-- One page of a run's labelled, kept, diagnosed conversations after @after_seq, in
-- upload order, with what the detector reads of them (a walk of the labelled index).
SELECT c.seq, c.label, c.messages::text AS messages, c.risk_flags, c.finding_categories AS categories,
       coalesce((c.diagnosis ->> 'failureScore')::real, 0)::real AS analyzer_score, c.content_hash
FROM task_conversation c
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.label IS NOT NULL AND c.seq > @after_seq
  AND c.qc_status = 'kept' AND c.diagnosis_status = 'done'
ORDER BY c.seq
LIMIT @max_rows;

-- name: NextFailureModelVersion :one
-- The version the agent's next detector gets: one more than the latest. It locks the
-- agent's row until the end of the transaction, so two trainings at once take turns.
SELECT (coalesce((SELECT max(m.version) FROM failure_model m
                  WHERE m.agent_id = a.id AND m.owner_user_id = a.owner_user_id), 0) + 1)::int AS version
FROM agent a
WHERE a.id = @agent_id AND a.owner_user_id = @owner_user_id
FOR NO KEY UPDATE;

-- name: InsertFailureModel :execrows
-- Stores version @version of the agent's detector (NextFailureModelVersion, in the same
-- transaction) and makes it the one that scores the agent's runs.
WITH inserted AS (
    INSERT INTO failure_model (agent_id, owner_user_id, version, trained_by, summary, model)
    VALUES (@agent_id, @owner_user_id, @version, @trained_by, @summary, @model)
    RETURNING version
)
UPDATE agent a SET failure_model_version = inserted.version
FROM inserted
WHERE a.id = @agent_id AND a.owner_user_id = @owner_user_id;

-- name: ClearFailureModel :execrows
-- The agent has no detector any more: its labels fell below the minimum (a labelled
-- run was deleted, or labels were taken back).
UPDATE agent SET failure_model_version = NULL
WHERE id = @agent_id AND owner_user_id = @owner_user_id AND failure_model_version IS NOT NULL;

-- name: GetCurrentFailureModel :one
-- The detector that scores the agent's runs now.
SELECT m.version, m.summary, m.model, m.trained_by
FROM agent a
JOIN failure_model m ON m.agent_id = a.id AND m.owner_user_id = a.owner_user_id AND m.version = a.failure_model_version
WHERE a.id = @agent_id AND a.owner_user_id = @owner_user_id;

-- name: GetFailureModelTrainedBy :many
-- The detector task @trained_by trained, when an earlier attempt of it stored one.
SELECT m.version, m.summary, m.model
FROM failure_model m
WHERE m.agent_id = @agent_id AND m.owner_user_id = @owner_user_id AND m.trained_by = @trained_by
ORDER BY m.version DESC
LIMIT 1;

-- name: PruneFailureModels :execrows
-- Keeps the models of the agent's latest @keep versions; older ones are history
-- nobody scores with, and a model may be megabytes.
DELETE FROM failure_model f
WHERE f.agent_id = @agent_id AND f.owner_user_id = @owner_user_id
  AND f.version <= (SELECT coalesce(max(m.version), 0) FROM failure_model m
                    WHERE m.agent_id = @agent_id AND m.owner_user_id = @owner_user_id) - @keep::int;

-- name: RequestLearning :one
-- Asks for the agent's detector to be trained again and tasks @rescore to be scored
-- with it: one pending learning task per agent, which labels given in a burst join.
-- It wakes the workers at commit.
WITH upserted AS (
    INSERT INTO analysis_task (owner_user_id, agent_id, kind, title, config)
    VALUES (@owner_user_id, @agent_id, 'learning', @title, jsonb_build_object('rescore', to_jsonb(@rescore::uuid[])))
    ON CONFLICT (agent_id) WHERE kind = 'learning' AND status = 'pending'
    DO UPDATE SET config = jsonb_build_object('rescore', (
        SELECT coalesce(jsonb_agg(DISTINCT r), '[]'::jsonb)
        FROM (SELECT jsonb_array_elements(analysis_task.config -> 'rescore') AS r
              UNION SELECT to_jsonb(x) FROM unnest(@rescore::uuid[]) AS x) AS rs))
    WHERE analysis_task.owner_user_id = @owner_user_id
    RETURNING id
)
SELECT id, pg_notify('checkup_tasks', id::text)::text AS notified FROM upserted;

-- name: GetPendingLearning :many
-- Whether the agent's detector waits to be trained again, or is being trained.
SELECT id, status, created_at
FROM analysis_task
WHERE agent_id = @agent_id::bigint AND owner_user_id = @owner_user_id AND kind = 'learning' AND status IN ('pending', 'running')
ORDER BY created_at;
