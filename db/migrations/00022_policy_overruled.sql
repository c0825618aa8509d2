-- +goose Up
-- The owner may say that an issue the agent's policy seems to call for is not expected
-- after all: the policy sentence it was matched to does not fit, or the agent should
-- not act so. The cluster is then an issue (policy_overruled, with the owner's reason
-- in expected_reason), its findings stay as the analyzer wrote them, and a rule with
-- expected false carries the owner's word to their later runs.
--
-- Both columns have constant defaults, so adding them only changes the catalogue; but
-- that needs each table's lock from every read, and a download of a large report reads
-- task_cluster in a transaction that lasts as long as the download. The locks are
-- taken first, each try waiting 100 ms at most, as in 00021.
-- +goose StatementBegin
DO $$
BEGIN
    PERFORM set_config('lock_timeout', '100ms', true);
    FOR attempt IN 1..600 LOOP
        BEGIN
            LOCK TABLE task_cluster, expected_rule IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt = 600 THEN
                RAISE EXCEPTION 'task_cluster and expected_rule could not be locked in 600 tries: other sessions kept using them';
            END IF;
            PERFORM pg_sleep(0.1);
        END;
    END LOOP;
END $$;
-- +goose StatementEnd
ALTER TABLE task_cluster ADD COLUMN policy_overruled boolean NOT NULL DEFAULT false;
-- NOT VALID: every stored row has policy_overruled false, so there is nothing to check,
-- and checking would read the whole table under the lock.
ALTER TABLE task_cluster ADD CONSTRAINT task_cluster_policy_overruled
    CHECK (NOT (policy_overruled AND expected)) NOT VALID;
ALTER TABLE expected_rule ADD COLUMN expected boolean NOT NULL DEFAULT true;

-- +goose Down
-- Without the columns a "not expected" rule would read as an expected one and hide the
-- issue, and an overruled cluster as a plain issue with the owner's reason: both go
-- back to what the policy says. An Action a later run wrote for such an issue leaves
-- the ranking, and its task's other Actions close the gap, as a mark's re-ranking
-- would (the ranks are cleared first: the unique rank index sees no two rows with one
-- rank in between).
DELETE FROM expected_rule WHERE NOT expected;
ALTER TABLE expected_rule DROP COLUMN expected;
ALTER TABLE task_cluster DROP CONSTRAINT task_cluster_policy_overruled;
CREATE TEMPORARY TABLE ranks_after ON COMMIT DROP AS
    SELECT a.task_id, a.candidate_index, row_number() OVER (PARTITION BY a.task_id ORDER BY a.rank) AS rank
    FROM task_action a
    WHERE a.rank IS NOT NULL
      AND a.task_id IN (SELECT task_id FROM task_cluster WHERE policy_overruled)
      AND NOT EXISTS (SELECT 1 FROM task_cluster c
                      WHERE c.task_id = a.task_id AND c.idx = a.cluster_idx AND c.policy_overruled);
UPDATE task_action SET rank = NULL
WHERE task_id IN (SELECT task_id FROM task_cluster WHERE policy_overruled);
UPDATE task_action a SET rank = r.rank
FROM ranks_after r WHERE a.task_id = r.task_id AND a.candidate_index = r.candidate_index;
UPDATE task_cluster SET expected = true, expected_by = 'policy', expected_reason = '' WHERE policy_overruled;
ALTER TABLE task_cluster DROP COLUMN policy_overruled;
