-- +goose Up
-- An owner may have only so many tasks waiting or running at once (uploads and re-runs
-- together, MAX_UNFINISHED_TASKS), since the queue runs the oldest task first and one
-- owner's hundred uploads would hold everyone else's behind them. This partial index
-- makes counting them before each new one a lookup, however many tasks the owner has;
-- it also serves the count of re-runs, which the index it replaces was for.
--
-- Building the index holds back writes of analysis_task (heartbeats, claims, uploads)
-- and dropping the old one every read of it, if only for the moment the small table
-- takes; but either waits for the transactions using the table, an upload among them,
-- and all that queues behind it waits too. Other instances may be running: each try
-- waits 100 ms at most for its lock, so that a waiting try never holds back the
-- statements queued behind it for longer; after 300 tries (30 to 60 s) the migration
-- fails, and the next start tries again.
-- +goose StatementBegin
DO $$
BEGIN
    PERFORM set_config('lock_timeout', '100ms', true);
    FOR attempt IN 1..300 LOOP
        BEGIN
            CREATE INDEX analysis_task_owner_unfinished ON analysis_task (owner_user_id)
                WHERE status IN ('pending', 'running');
            DROP INDEX analysis_task_rerun_unfinished;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt = 300 THEN
                RAISE EXCEPTION 'analysis_task could not be locked in 300 tries: other sessions kept using it';
            END IF;
            PERFORM pg_sleep(0.1);
        END;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
CREATE INDEX analysis_task_rerun_unfinished ON analysis_task (owner_user_id)
    WHERE rerun_of IS NOT NULL AND status IN ('pending', 'running');
DROP INDEX analysis_task_owner_unfinished;
