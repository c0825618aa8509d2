-- +goose Up
-- An owner may have only so many tasks waiting or running at once (uploads and re-runs
-- together, MAX_UNFINISHED_TASKS), since the queue runs the oldest task first and one
-- owner's hundred uploads would hold everyone else's behind them. This partial index
-- makes counting them before each new one a lookup, however many tasks the owner has;
-- it also serves the count of re-runs, which the index it replaces was for.
CREATE INDEX analysis_task_owner_unfinished ON analysis_task (owner_user_id)
    WHERE status IN ('pending', 'running');
DROP INDEX analysis_task_rerun_unfinished;

-- +goose Down
CREATE INDEX analysis_task_rerun_unfinished ON analysis_task (owner_user_id)
    WHERE rerun_of IS NOT NULL AND status IN ('pending', 'running');
DROP INDEX analysis_task_owner_unfinished;
