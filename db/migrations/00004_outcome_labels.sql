-- +goose Up
-- Outcome labels an upload carried (a success flag, a reward, a resolution, CSAT,
-- thumbs), read at upload: they score the diagnosis and split its clusters, and are
-- never analysis input. label_field names the field they were read from.
ALTER TABLE task_conversation
    ADD COLUMN label text CHECK (label IN ('failed', 'succeeded'));
ALTER TABLE analysis_task
    ADD COLUMN label_field text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE analysis_task DROP COLUMN label_field;
ALTER TABLE task_conversation DROP COLUMN label;
