-- +goose Up
-- A search document is a sorted list of distinct terms, which leaves a compressor
-- nothing to find: of the 40,000 documents of a large task pglz compressed none, and
-- lz4 saved 0.2%. PostgreSQL still tried to compress each document over 2 KB (two in
-- three) before storing it out of line as it was, in the quality pass's fenced
-- transaction. Stored out of line without the attempt (EXTERNAL), they take the same
-- space for a little less work: a few µs per document, within the noise of a whole
-- task. Documents stored before keep their storage.
--
-- The change locks the table and its 16 partitions from every read and write, if only
-- for a moment. Other instances may be running: each try waits 100 ms at most for the
-- locks, so that a waiting try never holds back the searches and writes queued behind
-- it for longer; after 300 tries (30 to 60 s) the migration fails, and the next start
-- tries again.
-- +goose StatementBegin
DO $$
BEGIN
    PERFORM set_config('lock_timeout', '100ms', true);
    FOR attempt IN 1..300 LOOP
        BEGIN
            ALTER TABLE task_search ALTER COLUMN doc SET STORAGE EXTERNAL;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt = 300 THEN
                RAISE EXCEPTION 'task_search could not be locked in 300 tries: other sessions kept using it';
            END IF;
            PERFORM pg_sleep(0.1);
        END;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE task_search ALTER COLUMN doc SET STORAGE EXTENDED;
