-- name: ListTaskActions :many
-- The task's Actions in rank order, failed candidates last in candidate order, with
-- whether their cluster is expected behaviour now (an owner marked it after its Action
-- was written: the Action is kept, unranked, for the mark's undo).
SELECT a.*, c.type AS cluster_type, c.title AS cluster_title, c.category AS cluster_category, c.expected AS cluster_expected,
       cardinality(c.conversation_seqs)::int AS cluster_size, c.prevalence, c.severity AS cluster_severity,
       c.confidence AS cluster_confidence, c.priority_score, c.priority_parts
FROM task_action a
JOIN task_cluster c ON c.task_id = a.task_id AND c.idx = a.cluster_idx AND c.owner_user_id = a.owner_user_id
WHERE a.task_id = @task_id AND a.owner_user_id = @owner_user_id
ORDER BY a.rank NULLS LAST, a.candidate_index;

-- name: InsertTaskAction :exec
-- One candidate's Action (status done) or its failure (status failed, with the error):
-- the candidate's checkpoint. Ranks are given when every candidate has settled.
INSERT INTO task_action (task_id, owner_user_id, candidate_index, cluster_idx, status, action, error)
SELECT t.id, t.owner_user_id, @candidate_index, @cluster_idx, @status, sqlc.narg('action')::jsonb, @error
FROM analysis_task t
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id;

-- name: ListActionCheckpoints :many
-- The candidates whose Action is stored, in candidate order, with their rank (null for
-- a failed Action or one whose issue is expected).
SELECT candidate_index, cluster_idx, status, error, rank
FROM task_action
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY candidate_index;

-- name: ClearTaskActionRanks :execrows
-- Clears the ranks before they are given again, so the unique rank index never sees
-- two rows with one rank in between.
UPDATE task_action SET rank = NULL
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND rank IS NOT NULL;

-- name: SetTaskActionRanks :execrows
-- Gives the written Actions their ranks, one array element per candidate.
UPDATE task_action a
SET rank = v.rank
FROM (SELECT unnest(@candidate_indexes::int[]) AS candidate_index, unnest(@ranks::int[]) AS rank) AS v
WHERE a.task_id = @task_id AND a.owner_user_id = @owner_user_id AND a.candidate_index = v.candidate_index;
