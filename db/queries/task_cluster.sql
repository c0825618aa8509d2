-- name: ListTaskClusters :many
-- The task's issue clusters, most urgent first, with how many conversations each
-- covers, not which: those lists grow with the task's findings
-- (ListClusterConversations), and only report.json writes them out. The evidence is
-- read on its own (ListTaskClusterEvidence).
SELECT task_id, owner_user_id, idx, type, category, title, title_text,
       cardinality(conversation_seqs)::int AS conversations, finding_count, prevalence, severity,
       confidence, priority_score, priority_parts, expected, expected_by, expected_reason, policy_overruled,
       label_failed, label_succeeded, label_unlabelled, failure_rate_in, failure_rate_out,
       failure_lift, excess_failures, p_value, q_value, estimated_failures, estimated_excess
FROM task_cluster
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY priority_score DESC, idx;

-- name: ListClusterConversations :many
-- Which conversations each of the task's clusters covers, for report.json.
SELECT idx, conversation_seqs FROM task_cluster
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY idx;

-- name: InsertTaskClusters :exec
-- A task's issue clusters, from a JSON array of rows (see pipeline.clusterRow).
INSERT INTO task_cluster (task_id, owner_user_id, idx, type, category, title, title_text, conversation_seqs,
                          finding_count, prevalence, severity, confidence, priority_score, priority_parts,
                          expected, expected_by, expected_reason, policy_overruled, label_failed, label_succeeded, label_unlabelled, failure_rate_in,
                          failure_rate_out, failure_lift, excess_failures, p_value, q_value,
                          estimated_failures, estimated_excess)
SELECT t.id, t.owner_user_id, (c.value ->> 'idx')::int, c.value ->> 'type', c.value ->> 'category',
       c.value ->> 'title', c.value -> 'title_text',
       ARRAY(SELECT s::int FROM jsonb_array_elements_text(c.value -> 'conversation_seqs') AS s),
       (c.value ->> 'finding_count')::int, (c.value ->> 'prevalence')::real,
       (c.value ->> 'severity')::real, (c.value ->> 'confidence')::real,
       (c.value ->> 'priority_score')::real, c.value -> 'priority_parts',
       coalesce((c.value ->> 'expected')::boolean, false), nullif(c.value ->> 'expected_by', ''),
       coalesce(c.value ->> 'expected_reason', ''), coalesce((c.value ->> 'policy_overruled')::boolean, false),
       coalesce((c.value -> 'outcomes' ->> 'failed')::int, 0),
       coalesce((c.value -> 'outcomes' ->> 'succeeded')::int, 0),
       coalesce((c.value -> 'outcomes' ->> 'unlabelled')::int, 0),
       (c.value -> 'outcomes' ->> 'failure_rate_in')::real, (c.value -> 'outcomes' ->> 'failure_rate_out')::real,
       (c.value -> 'outcomes' ->> 'failure_lift')::real, (c.value -> 'outcomes' ->> 'excess_failures')::real,
       (c.value -> 'outcomes' ->> 'p_value')::double precision, (c.value -> 'outcomes' ->> 'q_value')::double precision,
       (c.value -> 'estimated' ->> 'failures')::real, (c.value -> 'estimated' ->> 'excess')::real
FROM analysis_task t, jsonb_array_elements(@clusters::jsonb) AS c(value)
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id;

-- name: SetClusterOutcomes :execrows
-- Writes the clusters' outcome split and estimated failures again, from a JSON array
-- of rows (see pipeline.clusterRow; only idx, outcomes and estimated are read): the
-- task was scored again after labels changed or its agent's detector did.
UPDATE task_cluster k
SET label_failed = coalesce((c.value -> 'outcomes' ->> 'failed')::int, 0),
    label_succeeded = coalesce((c.value -> 'outcomes' ->> 'succeeded')::int, 0),
    label_unlabelled = coalesce((c.value -> 'outcomes' ->> 'unlabelled')::int, 0),
    failure_rate_in = (c.value -> 'outcomes' ->> 'failure_rate_in')::real,
    failure_rate_out = (c.value -> 'outcomes' ->> 'failure_rate_out')::real,
    failure_lift = (c.value -> 'outcomes' ->> 'failure_lift')::real,
    excess_failures = (c.value -> 'outcomes' ->> 'excess_failures')::real,
    p_value = (c.value -> 'outcomes' ->> 'p_value')::double precision,
    q_value = (c.value -> 'outcomes' ->> 'q_value')::double precision,
    estimated_failures = (c.value -> 'estimated' ->> 'failures')::real,
    estimated_excess = (c.value -> 'estimated' ->> 'excess')::real
FROM jsonb_array_elements(@clusters::jsonb) AS c(value)
WHERE k.task_id = @task_id AND k.owner_user_id = @owner_user_id AND k.idx = (c.value ->> 'idx')::int;

-- name: ListRunClusters :many
-- The clusters of the owner's tasks @task_ids with their share and Action rank (NULL
-- without an Action), in each task's order: what the task list's top issues and trends
-- are drawn from.
SELECT c.task_id, c.idx, c.type, c.category, c.title, c.title_text, c.prevalence, c.expected,
       cardinality(c.conversation_seqs)::int AS conversations, a.rank AS action_rank
FROM task_cluster c
LEFT JOIN task_action a ON a.task_id = c.task_id AND a.owner_user_id = c.owner_user_id
                       AND a.cluster_idx = c.idx AND a.rank IS NOT NULL
                       AND a.task_id = ANY(@task_ids::uuid[]) -- so the join reads these tasks' Actions on the key, not all the owner's
WHERE c.owner_user_id = @owner_user_id AND c.task_id = ANY(@task_ids::uuid[])
ORDER BY c.task_id, c.priority_score DESC, c.idx;

-- name: ListClusterNames :many
-- What the conversation list names its cluster filter by, most urgent first, with the
-- title's words to say it in the reader's language.
SELECT idx, type, category, title, title_text, cardinality(conversation_seqs)::int AS conversations, expected
FROM task_cluster
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY priority_score DESC, idx;

-- name: SetClusterExpected :execrows
-- Marks a cluster expected behaviour (@expected_by 'owner', with the owner's reason),
-- takes the mark back (@expected false, @expected_by null), says that the policy it
-- seemed to follow does not make it expected (@policy_overruled, with the owner's
-- reason), or takes that back (@expected_by 'policy').
UPDATE task_cluster
SET expected = @expected, expected_by = sqlc.narg('expected_by'), expected_reason = @expected_reason,
    policy_overruled = @policy_overruled
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND idx = @idx;

-- name: ListConversationClusterStandings :many
-- Whether each cluster of conversation @seq's findings is expected behaviour, by whom,
-- and whether the owner overruled the policy that called for it: what the conversation
-- page says of each finding.
SELECT k.idx, k.expected, k.expected_by, k.policy_overruled
FROM task_cluster k
WHERE k.task_id = @task_id AND k.owner_user_id = @owner_user_id
  AND k.idx IN (SELECT f.cluster_idx FROM task_finding f
                WHERE f.task_id = @task_id AND f.owner_user_id = @owner_user_id AND f.conversation_seq = @seq)
ORDER BY k.idx;
