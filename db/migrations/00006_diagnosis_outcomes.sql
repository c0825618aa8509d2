-- +goose Up
-- What the second round's diagnosis adds: each conversation's estimated outcome (a
-- failure score, 0..1, and the turn where things went wrong), findings that are
-- expected behaviour under the agent's own policy, each cluster's split by the outcome
-- labels an upload carried (with its failure lift and a Benjamini–Hochberg-corrected
-- Fisher test), and the features over-represented among failed conversations.
ALTER TABLE task_conversation
    ADD COLUMN failure_score real CHECK (failure_score BETWEEN 0 AND 1),
    ADD COLUMN failed_turn integer CHECK (failed_turn >= 0);

ALTER TABLE task_finding
    ADD COLUMN expected boolean NOT NULL DEFAULT false,
    ADD COLUMN policy text NOT NULL DEFAULT '';

ALTER TABLE task_cluster
    ADD COLUMN expected boolean NOT NULL DEFAULT false,
    -- The outcome split, by the labels of the conversations the cluster covers; all zero
    -- and the rest NULL when the upload had no labels.
    ADD COLUMN label_failed integer NOT NULL DEFAULT 0,
    ADD COLUMN label_succeeded integer NOT NULL DEFAULT 0,
    ADD COLUMN label_unlabelled integer NOT NULL DEFAULT 0,
    ADD COLUMN failure_rate_in real,
    ADD COLUMN failure_rate_out real,
    ADD COLUMN failure_lift real,
    ADD COLUMN excess_failures real,
    ADD COLUMN p_value double precision,
    ADD COLUMN q_value double precision;

-- How the analysis agrees with the labels (AUROC of the failure score, failures flagged,
-- successes left clean); NULL without labels.
ALTER TABLE analysis_task
    ADD COLUMN label_check jsonb;

CREATE TABLE task_driver (
    task_id       uuid    NOT NULL,
    owner_user_id bigint  NOT NULL,
    idx           integer NOT NULL CHECK (idx >= 0),
    kind          text    NOT NULL,
    feature       text    NOT NULL,
    failed        integer NOT NULL,
    succeeded     integer NOT NULL,
    rate_with     real    NOT NULL,
    rate_without  real    NOT NULL,
    lift          real    NOT NULL,
    p_value       double precision NOT NULL,
    q_value       double precision NOT NULL,
    example_seqs  integer[] NOT NULL,
    PRIMARY KEY (task_id, idx),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE task_driver;
ALTER TABLE analysis_task DROP COLUMN label_check;
ALTER TABLE task_cluster
    DROP COLUMN expected, DROP COLUMN label_failed, DROP COLUMN label_succeeded,
    DROP COLUMN label_unlabelled, DROP COLUMN failure_rate_in, DROP COLUMN failure_rate_out,
    DROP COLUMN failure_lift, DROP COLUMN excess_failures, DROP COLUMN p_value, DROP COLUMN q_value;
ALTER TABLE task_finding DROP COLUMN expected, DROP COLUMN policy;
ALTER TABLE task_conversation DROP COLUMN failure_score, DROP COLUMN failed_turn;
