-- +goose Up
-- A finding's title and description kept by message key and arguments (locale.Text:
-- {"title": …, "description": …}), beside the English they were written in, so one
-- diagnosis reads in each reader's language. NULL for findings written in words only
-- (a model's, and those of diagnoses made before), which read as written. Adding a
-- column without a default only changes the catalogue.
ALTER TABLE task_finding ADD COLUMN text jsonb;
-- An issue's title kept the same way: the title Text of the findings it is named after.
ALTER TABLE task_cluster ADD COLUMN title_text jsonb;

-- +goose Down
ALTER TABLE task_cluster DROP COLUMN title_text;
ALTER TABLE task_finding DROP COLUMN text;
