-- +goose Up
-- Agents and what Checkup learns of them. Every diagnosis belongs to one of its
-- owner's agents; an agent's outcome labels (from uploads, or given by the owner on
-- the pages) train its failure detector, a model of that agent only, stored with a
-- version; a run records the version that scored it. Learning is a unit of work of
-- the queue like a diagnosis: a task row of kind 'learning'.

CREATE TABLE agent (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_user_id bigint      NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    -- The system prompt of the agent's latest run: an upload without an agent's name
    -- joins the agent whose prompt it shares most of its words with.
    system_prompt text        NOT NULL DEFAULT '',
    -- The detector that scores the agent's runs now; NULL while there is none.
    failure_model_version integer,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (owner_user_id, name),
    UNIQUE (id, owner_user_id)
);

CREATE TABLE failure_model (
    agent_id      bigint      NOT NULL,
    owner_user_id bigint      NOT NULL,
    version       integer     NOT NULL CHECK (version >= 1),
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- The task whose run or labels trained it.
    trained_by    uuid,
    -- What report.json's failure_model says of it: the labels it learned from, the
    -- runs they came from, its cross-validated AUROC and interval, its top features.
    summary       jsonb       NOT NULL,
    -- The model itself (the detector package's stored form).
    model         jsonb       NOT NULL,
    PRIMARY KEY (agent_id, version),
    FOREIGN KEY (agent_id, owner_user_id) REFERENCES agent (id, owner_user_id) ON DELETE CASCADE
);

ALTER TABLE analysis_task
    ADD COLUMN agent_id bigint,
    ADD COLUMN kind text NOT NULL DEFAULT 'diagnosis' CHECK (kind IN ('diagnosis', 'learning')),
    -- The detector that scored this run (its summary, as report.json's failure_model
    -- shows it); NULL when none did.
    ADD COLUMN failure_model jsonb,
    ADD FOREIGN KEY (agent_id, owner_user_id) REFERENCES agent (id, owner_user_id) ON DELETE CASCADE;
CREATE INDEX analysis_task_agent ON analysis_task (agent_id, created_at);
-- Labels given in a burst wait as one learning task per agent.
CREATE UNIQUE INDEX analysis_task_one_pending_learning ON analysis_task (agent_id)
    WHERE kind = 'learning' AND status = 'pending';

-- Where a conversation's outcome label came from: the upload, or the owner on the
-- pages (reviewed_*). The upload's label wins: a reviewer's that disagrees is kept and
-- shown, and label stays the upload's.
ALTER TABLE task_conversation
    ADD COLUMN label_source text CHECK (label_source IN ('upload', 'reviewer')),
    ADD COLUMN reviewed_label text CHECK (reviewed_label IN ('failed', 'succeeded')),
    ADD COLUMN reviewed_by bigint REFERENCES app_user (id) ON DELETE SET NULL,
    ADD COLUMN reviewed_at timestamptz;
UPDATE task_conversation SET label_source = 'upload' WHERE label IS NOT NULL;
ALTER TABLE task_conversation
    ADD CONSTRAINT task_conversation_label_source CHECK ((label IS NULL) = (label_source IS NULL));
-- The failures each cluster's conversations are estimated to hold (labels where there
-- are, the detector's scores elsewhere) and how many more than its size predicts: what
-- ranks the Actions of a run a detector scored. NULL when none did.
ALTER TABLE task_cluster
    ADD COLUMN estimated_failures real,
    ADD COLUMN estimated_excess real;

-- The sizes a failure score must beat (counting alone), written at upload.
ALTER TABLE task_conversation
    ADD COLUMN turns integer NOT NULL DEFAULT 0 CHECK (turns >= 0),
    ADD COLUMN user_turns integer NOT NULL DEFAULT 0 CHECK (user_turns >= 0),
    ADD COLUMN tool_calls integer NOT NULL DEFAULT 0 CHECK (tool_calls >= 0);
UPDATE task_conversation c
SET turns = s.turns, user_turns = s.user_turns, tool_calls = s.tool_calls
FROM (SELECT c2.task_id, c2.seq,
             count(*) FILTER (WHERE m ->> 'role' <> 'system') AS turns,
             count(*) FILTER (WHERE m ->> 'role' = 'user') AS user_turns,
             coalesce(sum(CASE WHEN json_typeof(m -> 'tool_calls') = 'array' THEN json_array_length(m -> 'tool_calls') ELSE 0 END), 0) AS tool_calls
      FROM task_conversation c2, json_array_elements(c2.messages) m
      GROUP BY c2.task_id, c2.seq) s
WHERE c.task_id = s.task_id AND c.seq = s.seq;
-- The agent's labelled conversations, for training and for counting what is needed.
CREATE INDEX task_conversation_labelled ON task_conversation (task_id, seq) WHERE label IS NOT NULL;

-- The tasks diagnosed before agents existed: one agent per owner and title, with the
-- system prompt of its latest run's first conversation.
INSERT INTO agent (owner_user_id, name, system_prompt)
SELECT DISTINCT ON (t.owner_user_id, t.title) t.owner_user_id, t.title,
       coalesce((SELECT string_agg(m ->> 'content', E'\n')
                 FROM task_conversation c, json_array_elements(c.messages) m
                 WHERE c.task_id = t.id AND c.seq = 1 AND m ->> 'role' = 'system'), '')
FROM analysis_task t
ORDER BY t.owner_user_id, t.title, t.created_at DESC;
UPDATE analysis_task t SET agent_id = a.id
FROM agent a WHERE a.owner_user_id = t.owner_user_id AND a.name = t.title;

-- +goose Down
ALTER TABLE task_cluster DROP COLUMN estimated_failures, DROP COLUMN estimated_excess;
ALTER TABLE task_conversation DROP CONSTRAINT task_conversation_label_source;
DROP INDEX task_conversation_labelled;
-- A reviewer's label was an outcome label like the upload's; the earlier schema keeps
-- it as one.
ALTER TABLE task_conversation
    DROP COLUMN label_source, DROP COLUMN reviewed_label, DROP COLUMN reviewed_by, DROP COLUMN reviewed_at,
    DROP COLUMN turns, DROP COLUMN user_turns, DROP COLUMN tool_calls;
DELETE FROM analysis_task WHERE kind = 'learning';
ALTER TABLE analysis_task DROP COLUMN agent_id, DROP COLUMN kind, DROP COLUMN failure_model;
DROP TABLE failure_model;
DROP TABLE agent;
