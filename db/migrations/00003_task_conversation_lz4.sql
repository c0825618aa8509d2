-- +goose Up
-- Conversations are large jsonb values (a tool-using agent's is ~17 KB), so they are
-- compressed into TOAST as they are written. lz4 compresses them about twice as fast as
-- the default pglz for ~15% more space, which more than doubles the rate at which an
-- upload's COPY is stored (BENCHMARKS.md). Servers without lz4 (PostgreSQL 13, or built
-- without it) keep pglz.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE task_conversation ALTER COLUMN messages SET COMPRESSION lz4;
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression') THEN
        ALTER TABLE task_conversation ALTER COLUMN messages SET COMPRESSION default;
    END IF;
END $$;
-- +goose StatementEnd
