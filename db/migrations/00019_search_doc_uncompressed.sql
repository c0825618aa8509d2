-- +goose Up
-- A search document is a sorted list of distinct terms, which leaves a compressor
-- nothing to find: of the 40,000 documents of a large task pglz compressed none, and
-- lz4 saved 0.2%. PostgreSQL still tried to compress each document over 2 KB (two in
-- three) before storing it out of line as it was, in the quality pass's fenced
-- transaction. Stored out of line without the attempt (EXTERNAL), the documents take
-- the same space, and a task of 10,000 stored its documents in 1,956–2,270 ms against
-- 2,429–2,504 (three runs each, alternating). The setting reaches every partition.
ALTER TABLE task_search ALTER COLUMN doc SET STORAGE EXTERNAL;

-- +goose Down
ALTER TABLE task_search ALTER COLUMN doc SET STORAGE EXTENDED;
