-- An owner's rules of expected behaviour: made by marking a cluster of a finished task,
-- applied by the pipeline to the owner's later runs.

-- name: UpsertExpectedRule :one
-- Stores owner's rule for the runs of agent @agent_id (NULL: all their agents) of
-- clusters of @type and @category whose title normalises to @normal_title: @expected
-- true marks them expected behaviour, false says they are not expected even where the
-- agent's policy seems to call for them. Marking the same issue again keeps one rule,
-- with the latest reason, made when and where it was first (the diagnosis it was made
-- on, unless that one was deleted); no row comes back when the owner's rule for the
-- issue says the opposite, which only its removal changes. The owner in the WHERE is
-- the conflict key's already: it is there so every statement on an owned table names
-- its owner.
INSERT INTO expected_rule (owner_user_id, agent_id, type, category, normal_title, title, reason, source_task_id, expected)
VALUES (@owner_user_id, sqlc.narg('agent_id'), @type, @category, @normal_title, @title, @reason, @source_task_id, @expected)
ON CONFLICT (owner_user_id, (coalesce(agent_id, 0)), type, category, normal_title)
DO UPDATE SET reason = EXCLUDED.reason,
              title = CASE WHEN expected_rule.source_task_id IS NULL THEN EXCLUDED.title ELSE expected_rule.title END,
              source_task_id = coalesce(expected_rule.source_task_id, EXCLUDED.source_task_id)
WHERE expected_rule.owner_user_id = @owner_user_id AND expected_rule.expected = EXCLUDED.expected
RETURNING id;

-- name: ListExpectedRules :many
-- The owner's rules, newest first — with @for_agent, only those that apply to the runs
-- of agent @agent_id (its own and those for all agents; for a run without an agent,
-- those for all agents) — each with its agent's name (empty for all agents) and the
-- title and start of the diagnosis it was marked in (re-runs share a title; empty and
-- null once that diagnosis is deleted).
SELECT r.id, r.type, r.category, r.normal_title, r.title, r.reason, r.expected, r.source_task_id, r.created_at,
       r.agent_id, coalesce(a.name, '')::text AS agent_name,
       coalesce(t.title, '')::text AS source_task_title, t.created_at AS source_task_created_at
FROM expected_rule r
LEFT JOIN analysis_task t ON t.id = r.source_task_id AND t.owner_user_id = r.owner_user_id
LEFT JOIN agent a ON a.id = r.agent_id AND a.owner_user_id = r.owner_user_id
WHERE r.owner_user_id = @owner_user_id
  AND (NOT @for_agent::boolean OR r.agent_id IS NULL OR r.agent_id = sqlc.narg('agent_id'))
ORDER BY a.name NULLS FIRST, r.created_at DESC, r.id DESC;

-- name: WidenExpectedRule :execrows
-- Makes owner's rule @id apply to all their agents.
UPDATE expected_rule SET agent_id = NULL WHERE owner_user_id = @owner_user_id AND id = @id;

-- name: DeleteExpectedRules :execrows
-- Removes owner's rules @ids; later runs no longer mark what they matched.
DELETE FROM expected_rule WHERE owner_user_id = @owner_user_id AND id = ANY(@ids::bigint[]);
