-- +goose Up
-- A re-run copies every conversation of its task, so an owner may have only a few
-- waiting or running at once; this small partial index makes counting them before each
-- new one a lookup, however many tasks the owner has. Neither column changes on a
-- heartbeat, which stays a HOT update.
CREATE INDEX analysis_task_rerun_unfinished ON analysis_task (owner_user_id)
    WHERE rerun_of IS NOT NULL AND status IN ('pending', 'running');

-- +goose Down
DROP INDEX analysis_task_rerun_unfinished;
