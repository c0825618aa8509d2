-- +goose Up
-- The planner's statistics of a task's conversations are refreshed twice per large task
-- (MaintenanceAnalyzeConversations, MaintenanceAnalyzeResults) and again by autovacuum.
-- No query filters, joins or sorts on these columns, so their statistics are never
-- used, and gathering them was half of each refresh: the transcripts, the diagnoses
-- and the metadata are decompressed and the JSON compared value by value. At 10,500
-- conversations ANALYZE task_conversation took 477–560 ms with them, 240–305 without.
ALTER TABLE task_conversation
    ALTER COLUMN messages SET STATISTICS 0,
    ALTER COLUMN metadata SET STATISTICS 0,
    ALTER COLUMN diagnosis SET STATISTICS 0,
    ALTER COLUMN content_hash SET STATISTICS 0,
    ALTER COLUMN qc_reason SET STATISTICS 0,
    ALTER COLUMN diagnosis_error SET STATISTICS 0,
    ALTER COLUMN diagnosis_pass SET STATISTICS 0,
    ALTER COLUMN diagnosed_at SET STATISTICS 0,
    ALTER COLUMN failed_turn SET STATISTICS 0;

-- +goose Down
ALTER TABLE task_conversation
    ALTER COLUMN messages SET STATISTICS -1,
    ALTER COLUMN metadata SET STATISTICS -1,
    ALTER COLUMN diagnosis SET STATISTICS -1,
    ALTER COLUMN content_hash SET STATISTICS -1,
    ALTER COLUMN qc_reason SET STATISTICS -1,
    ALTER COLUMN diagnosis_error SET STATISTICS -1,
    ALTER COLUMN diagnosis_pass SET STATISTICS -1,
    ALTER COLUMN diagnosed_at SET STATISTICS -1,
    ALTER COLUMN failed_turn SET STATISTICS -1;
