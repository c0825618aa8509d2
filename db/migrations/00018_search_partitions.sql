-- +goose Up
-- The search documents in 16 partitions by task, each with its own words' index. A
-- GIN index keeps what was last written in a pending list that every search of the
-- index reads, and while the list is long the planner checks every document of the
-- task instead: another owner's quality pass, writing its documents, made every
-- owner's searches slow. Now it fills only its own partition's list, shared with a
-- sixteenth of the other tasks. Beside a pass of 10,000, searches of a task of 40,000
-- took p50 129 / slowest 545 ms in one table, 68 / 170 partitioned (medians of four
-- runs each). Each index also holds a sixteenth of the other tasks' documents, whose
-- matches a search reads before it keeps only its task's. Every query names its
-- task, so it reads one partition.
-- +goose StatementBegin
DO $$
BEGIN
    CREATE TABLE task_search_partitioned (
        task_id       uuid     NOT NULL,
        owner_user_id bigint   NOT NULL,
        seq           integer  NOT NULL,
        doc           tsvector NOT NULL,
        CONSTRAINT task_search_partitioned_pkey PRIMARY KEY (task_id, seq),
        CONSTRAINT task_search_task_id_owner_user_id_fkey FOREIGN KEY (task_id, owner_user_id)
            REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
        CONSTRAINT task_search_task_id_seq_fkey FOREIGN KEY (task_id, seq)
            REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE
    ) PARTITION BY HASH (task_id);
    FOR i IN 0..15 LOOP
        EXECUTE format('CREATE TABLE task_search_%s PARTITION OF task_search_partitioned FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, i);
    END LOOP;
    INSERT INTO task_search_partitioned SELECT task_id, owner_user_id, seq, doc FROM task_search;
    DROP TABLE task_search;
    ALTER TABLE task_search_partitioned RENAME TO task_search;
    ALTER TABLE task_search RENAME CONSTRAINT task_search_partitioned_pkey TO task_search_pkey;
    -- Built after the copy, as one sort rather than row by row.
    CREATE INDEX task_search_doc ON task_search USING gin (doc);
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    CREATE TABLE task_search_single (
        task_id       uuid     NOT NULL,
        owner_user_id bigint   NOT NULL,
        seq           integer  NOT NULL,
        doc           tsvector NOT NULL,
        CONSTRAINT task_search_single_pkey PRIMARY KEY (task_id, seq),
        CONSTRAINT task_search_task_id_owner_user_id_fkey FOREIGN KEY (task_id, owner_user_id)
            REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
        CONSTRAINT task_search_task_id_seq_fkey FOREIGN KEY (task_id, seq)
            REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE
    );
    INSERT INTO task_search_single SELECT task_id, owner_user_id, seq, doc FROM task_search;
    DROP TABLE task_search;
    ALTER TABLE task_search_single RENAME TO task_search;
    ALTER TABLE task_search RENAME CONSTRAINT task_search_single_pkey TO task_search_pkey;
    CREATE INDEX task_search_doc ON task_search USING gin (doc);
END $$;
-- +goose StatementEnd
