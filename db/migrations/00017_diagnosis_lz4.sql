-- +goose Up
-- A diagnosis (~1.9 KB of jsonb for the offline rules) makes its conversation's row
-- long enough to be compressed as it is stored, in the checkpoint that writes it:
-- compressing it was 8% of PostgreSQL's work while a large task was diagnosed. lz4, as
-- for the transcripts (00003), stores 10,500 diagnoses in 565–611 ms against 818–959
-- with pglz, for 7% more space. Servers without lz4 keep pglz.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE task_conversation ALTER COLUMN diagnosis SET COMPRESSION lz4;
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression') THEN
        ALTER TABLE task_conversation ALTER COLUMN diagnosis SET COMPRESSION default;
    END IF;
END $$;
-- +goose StatementEnd
