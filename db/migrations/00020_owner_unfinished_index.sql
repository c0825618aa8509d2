-- +goose NO TRANSACTION
-- +goose Up
-- An owner may have only so many tasks waiting or running at once (uploads and re-runs
-- together, MAX_UNFINISHED_TASKS), since the queue runs the oldest task first and one
-- owner's hundred uploads would hold everyone else's behind them. This partial index
-- makes counting them before each new one a lookup, however many tasks the owner has;
-- it also serves the count of re-runs, which the index it replaces was for.
--
-- Other instances may be running, with uploads and downloads that hold analysis_task
-- for minutes: the index is built and the old one dropped CONCURRENTLY, each waiting
-- for the transactions before it without holding back the ones after. A build cut
-- short leaves an invalid index, which the next start drops and builds again.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE c.relname = 'analysis_task_owner_unfinished' AND NOT i.indisvalid) THEN
        ALTER INDEX analysis_task_owner_unfinished RENAME TO analysis_task_owner_unfinished_invalid;
    END IF;
END $$;
-- +goose StatementEnd
DROP INDEX CONCURRENTLY IF EXISTS analysis_task_owner_unfinished_invalid;
CREATE INDEX CONCURRENTLY IF NOT EXISTS analysis_task_owner_unfinished ON analysis_task (owner_user_id)
    WHERE status IN ('pending', 'running');
DROP INDEX CONCURRENTLY IF EXISTS analysis_task_rerun_unfinished;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS analysis_task_rerun_unfinished ON analysis_task (owner_user_id)
    WHERE rerun_of IS NOT NULL AND status IN ('pending', 'running');
DROP INDEX CONCURRENTLY IF EXISTS analysis_task_owner_unfinished;
