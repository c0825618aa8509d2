-- +goose Up
-- What the PM's loop reads: a task's conversations listed, filtered, searched and
-- sorted a page at a time, and the owner's marks of expected behaviour.

-- The conversation list sorts by failure score, turns or the highest severity of the
-- conversation's findings (expected behaviour aside), and filters by the categories of
-- those findings: both are written with the diagnosis, so a page is one walk down one
-- of these indexes instead of a join to every finding of the task.
ALTER TABLE task_conversation
    ADD COLUMN max_severity integer NOT NULL DEFAULT 0 CHECK (max_severity BETWEEN 0 AND 5),
    ADD COLUMN finding_categories text[] NOT NULL DEFAULT '{}';
UPDATE task_conversation c
SET max_severity = f.max_severity, finding_categories = f.categories
FROM (SELECT task_id, conversation_seq, max(severity) AS max_severity,
             array_agg(DISTINCT category ORDER BY category) AS categories
      FROM task_finding WHERE NOT expected
      GROUP BY task_id, conversation_seq) f
WHERE c.task_id = f.task_id AND c.seq = f.conversation_seq;
-- Keyset pages of the kept conversations, one index per sort, ties in upload order.
-- Not diagnosed yet sorts last (-1). The indexes hold every conversation, not only the
-- kept ones: a predicate on qc_status would make every update of the quality checks
-- and the risk screening a non-HOT update that writes to every index.
CREATE INDEX task_conversation_by_failure ON task_conversation (task_id, (coalesce(failure_score, -1)) DESC, seq);
CREATE INDEX task_conversation_by_turns ON task_conversation (task_id, message_count DESC, seq);
CREATE INDEX task_conversation_by_severity ON task_conversation (task_id, max_severity DESC, seq);

-- The words of each kept conversation's messages and tool names, written once by the
-- quality pass and never updated, so the full-text index is built once per
-- conversation and not again at every later update of task_conversation. doc is built
-- from terms the application folds and splits (Chinese into characters and character
-- pairs), so search does not depend on the database's locale.
CREATE TABLE task_search (
    task_id       uuid     NOT NULL,
    owner_user_id bigint   NOT NULL,
    seq           integer  NOT NULL,
    doc           tsvector NOT NULL,
    PRIMARY KEY (task_id, seq),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
    FOREIGN KEY (task_id, seq) REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE
);
CREATE INDEX task_search_doc ON task_search USING gin (doc);

-- Every labelled conversation with a driver's feature, not only its examples, so a
-- driver links to its full list.
ALTER TABLE task_driver
    ADD COLUMN conversation_seqs integer[] NOT NULL DEFAULT '{}';

-- Who says a cluster is expected behaviour: the agent's policy (its system prompt), or
-- the owner, with their reason.
ALTER TABLE task_cluster
    ADD COLUMN expected_by text CHECK (expected_by IN ('policy', 'owner')),
    ADD COLUMN expected_reason text NOT NULL DEFAULT '';
UPDATE task_cluster SET expected_by = 'policy' WHERE expected;
ALTER TABLE task_cluster
    ADD CONSTRAINT task_cluster_expected_by CHECK ((expected_by IS NOT NULL) = expected);

-- An owner's rule that clusters of one type and category with a title like this one
-- are expected behaviour: made by marking a cluster, applied to the owner's later runs
-- when their clusters are built. normal_title is the clusterer's normalised form of
-- the title, so one rule is kept per issue however it was worded.
CREATE TABLE expected_rule (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_user_id  bigint      NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    type           text        NOT NULL CHECK (type IN ('RISK', 'ACTION')),
    category       text        NOT NULL,
    normal_title   text        NOT NULL,
    title          text        NOT NULL,
    reason         text        NOT NULL DEFAULT '' CHECK (length(reason) <= 500),
    source_task_id uuid        REFERENCES analysis_task (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (owner_user_id, type, category, normal_title)
);

-- +goose Down
DROP TABLE expected_rule;
ALTER TABLE task_cluster DROP CONSTRAINT task_cluster_expected_by;
ALTER TABLE task_cluster DROP COLUMN expected_by, DROP COLUMN expected_reason;
ALTER TABLE task_driver DROP COLUMN conversation_seqs;
DROP TABLE task_search;
DROP INDEX task_conversation_by_failure, task_conversation_by_turns, task_conversation_by_severity;
ALTER TABLE task_conversation DROP COLUMN max_severity, DROP COLUMN finding_categories;
