-- +goose Up
-- An owner's runs of one title, newest first: the compare page's picker lists them
-- first, and the task list draws each task's trend over them.
CREATE INDEX analysis_task_owner_title ON analysis_task (owner_user_id, title, created_at DESC);

-- +goose Down
DROP INDEX analysis_task_owner_title;
