-- +goose Up
-- A warning's scope and message kept by message key and arguments (locale.Text) beside
-- the English in scope and message, so the task page and report.md say it in each
-- reader's language while report.json and the API keep the English. NULL for the
-- warnings made before, which read as they were stored. Adding columns without a
-- default only changes the catalogue.
ALTER TABLE task_warning ADD COLUMN scope_text jsonb, ADD COLUMN message_text jsonb;

-- +goose Down
ALTER TABLE task_warning DROP COLUMN message_text, DROP COLUMN scope_text;
