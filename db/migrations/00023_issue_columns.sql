-- +goose Up
-- What the conversation list filters and sorts by, each conversation's most severe
-- finding that is an issue and those findings' categories, follows the owner's word
-- on the findings' clusters from now on: a finding of a cluster marked expected (by a
-- mark or a rule) is not an issue, and one of a cluster whose policy the owner
-- overruled is. Before, they followed the findings' own flags alone. The
-- conversations of the clusters an owner has spoken on are derived again. A mark made,
-- or a diagnosis finished, by an instance still running the earlier code during a
-- rolling deploy keeps the findings' word on its conversations until the issue is
-- marked again.
WITH conv AS (
    SELECT DISTINCT k.task_id, k.owner_user_id, unnest(k.conversation_seqs) AS seq
    FROM task_cluster k
    WHERE k.expected_by = 'owner' OR k.policy_overruled
), issues AS (
    SELECT conv.task_id, conv.seq,
           coalesce(max(f.severity) FILTER (WHERE NOT coalesce(k.expected, f.expected)), 0) AS max_severity,
           coalesce(array_agg(DISTINCT f.category ORDER BY f.category) FILTER (WHERE NOT coalesce(k.expected, f.expected)),
                    '{}') AS categories
    FROM conv
    JOIN task_finding f ON f.task_id = conv.task_id AND f.owner_user_id = conv.owner_user_id AND f.conversation_seq = conv.seq
    LEFT JOIN task_cluster k ON k.task_id = f.task_id AND k.owner_user_id = f.owner_user_id AND k.idx = f.cluster_idx
    GROUP BY conv.task_id, conv.seq
)
UPDATE task_conversation c
SET max_severity = issues.max_severity, finding_categories = issues.categories
FROM issues
WHERE c.task_id = issues.task_id AND c.seq = issues.seq
  AND (c.max_severity, c.finding_categories) IS DISTINCT FROM (issues.max_severity, issues.categories);

-- +goose Down
-- The earlier code derives them from the findings' own flags, and so do these.
WITH conv AS (
    SELECT DISTINCT k.task_id, k.owner_user_id, unnest(k.conversation_seqs) AS seq
    FROM task_cluster k
    WHERE k.expected_by = 'owner' OR k.policy_overruled
), issues AS (
    SELECT conv.task_id, conv.seq,
           coalesce(max(f.severity) FILTER (WHERE NOT f.expected), 0) AS max_severity,
           coalesce(array_agg(DISTINCT f.category ORDER BY f.category) FILTER (WHERE NOT f.expected), '{}') AS categories
    FROM conv
    JOIN task_finding f ON f.task_id = conv.task_id AND f.owner_user_id = conv.owner_user_id AND f.conversation_seq = conv.seq
    GROUP BY conv.task_id, conv.seq
)
UPDATE task_conversation c
SET max_severity = issues.max_severity, finding_categories = issues.categories
FROM issues
WHERE c.task_id = issues.task_id AND c.seq = issues.seq
  AND (c.max_severity, c.finding_categories) IS DISTINCT FROM (issues.max_severity, issues.categories);
