-- +goose Up
-- A word driver ("the agent wrote: date") with the turn of its first example
-- conversation it is written in and a quote around it, so whoever reads it sees what
-- the word is about. Null for the other kinds, for drivers stored before, and when the
-- words were not found.
--
-- Adding a nullable column only changes the catalogue, but it needs task_driver's lock
-- from every read, and a download of a large report reads the table in a transaction
-- that lasts as long as the download. The lock is taken first, each try waiting 100 ms
-- at most, so that a waiting try never holds back the pages queued behind it for
-- longer; after 600 tries (one to two minutes) the migration fails, and the next start
-- tries again.
-- +goose StatementBegin
DO $$
BEGIN
    PERFORM set_config('lock_timeout', '100ms', true);
    FOR attempt IN 1..600 LOOP
        BEGIN
            LOCK TABLE task_driver IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt = 600 THEN
                RAISE EXCEPTION 'task_driver could not be locked in 600 tries: other sessions kept using it';
            END IF;
            PERFORM pg_sleep(0.1);
        END;
    END LOOP;
END $$;
-- +goose StatementEnd
ALTER TABLE task_driver ADD COLUMN example_turn integer, ADD COLUMN example_quote text;

-- +goose Down
ALTER TABLE task_driver DROP COLUMN example_turn, DROP COLUMN example_quote;
