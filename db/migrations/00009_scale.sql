-- +goose Up
-- Transcripts are stored as json, not jsonb. Nothing queries inside them: every
-- stage reads a transcript whole and decodes it in Go, and turning jsonb back into
-- text costs PostgreSQL ~170 µs per sample conversation against ~20 µs for json
-- (detoast and lz4 only), paid on every read of every conversation; an upload's COPY
-- also stops building the jsonb tree. The type change drops the column's compression
-- setting, so lz4 is set again (see 00003).
ALTER TABLE task_conversation ALTER COLUMN messages TYPE json USING messages::json;
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE task_conversation ALTER COLUMN messages SET COMPRESSION lz4;
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE task_conversation ALTER COLUMN messages TYPE jsonb USING messages::jsonb;
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE task_conversation ALTER COLUMN messages SET COMPRESSION lz4;
    END IF;
END $$;
-- +goose StatementEnd
