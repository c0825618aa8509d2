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
--
-- The documents are copied and indexed first, while the old table stays in use and no
-- other table is locked: building the index is most of the time. Only then does the
-- migration lock the old table and the two the new one refers to, holding back every
-- read and write of them (a worker's heartbeat among them) while it copies what was
-- written meanwhile, drops what was deleted, checks the foreign keys in one join each
-- and swaps the tables. The grants of the old table are given on the new one, for a
-- role that uses the tables without owning them.
-- +goose StatementBegin
DO $$
DECLARE
    g record;
BEGIN
    CREATE TABLE task_search_partitioned (
        task_id       uuid     NOT NULL,
        owner_user_id bigint   NOT NULL,
        seq           integer  NOT NULL,
        doc           tsvector NOT NULL,
        CONSTRAINT task_search_partitioned_pkey PRIMARY KEY (task_id, seq)
    ) PARTITION BY HASH (task_id);
    FOR i IN 0..15 LOOP
        EXECUTE format('CREATE TABLE task_search_%s PARTITION OF task_search_partitioned FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, i);
    END LOOP;
    INSERT INTO task_search_partitioned SELECT task_id, owner_user_id, seq, doc FROM task_search;
    CREATE INDEX task_search_partitioned_doc ON task_search_partitioned USING gin (doc);

    -- Locked only when no one else holds any of them, tried every 50 ms for 30 s and
    -- then waited for: waiting, holding one while another transaction holds the next
    -- and wants the first, would deadlock.
    FOR attempt IN 1..600 LOOP
        BEGIN
            LOCK TABLE analysis_task, task_conversation, task_search IN ACCESS EXCLUSIVE MODE NOWAIT;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05);
        END;
    END LOOP;
    LOCK TABLE analysis_task, task_conversation, task_search IN ACCESS EXCLUSIVE MODE;
    INSERT INTO task_search_partitioned SELECT o.task_id, o.owner_user_id, o.seq, o.doc FROM task_search o
    ON CONFLICT (task_id, seq) DO NOTHING;
    DELETE FROM task_search_partitioned n
    WHERE NOT EXISTS (SELECT 1 FROM task_search o WHERE o.task_id = n.task_id AND o.seq = n.seq);
    ALTER TABLE task_search_partitioned
        ADD CONSTRAINT task_search_task_id_owner_user_id_fkey FOREIGN KEY (task_id, owner_user_id)
            REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
        ADD CONSTRAINT task_search_task_id_seq_fkey FOREIGN KEY (task_id, seq)
            REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE;
    FOR g IN
        SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee
        FROM pg_class c, aclexplode(c.relacl) a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = 'task_search'::regclass AND a.grantee <> c.relowner
    LOOP
        EXECUTE format('GRANT %s ON task_search_partitioned TO %s', g.privilege_type, g.grantee);
    END LOOP;
    DROP TABLE task_search;
    ALTER TABLE task_search_partitioned RENAME TO task_search;
    ALTER TABLE task_search RENAME CONSTRAINT task_search_partitioned_pkey TO task_search_pkey;
    ALTER INDEX task_search_partitioned_doc RENAME TO task_search_doc;
END $$;
-- +goose StatementEnd

-- +goose Down
-- The same steps the other way: copied and indexed before anything is locked.
-- +goose StatementBegin
DO $$
DECLARE
    g record;
BEGIN
    CREATE TABLE task_search_single (
        task_id       uuid     NOT NULL,
        owner_user_id bigint   NOT NULL,
        seq           integer  NOT NULL,
        doc           tsvector NOT NULL,
        CONSTRAINT task_search_single_pkey PRIMARY KEY (task_id, seq)
    );
    INSERT INTO task_search_single SELECT task_id, owner_user_id, seq, doc FROM task_search;
    CREATE INDEX task_search_single_doc ON task_search_single USING gin (doc);

    -- Locked only when no one else holds any of them, tried every 50 ms for 30 s and
    -- then waited for: waiting, holding one while another transaction holds the next
    -- and wants the first, would deadlock.
    FOR attempt IN 1..600 LOOP
        BEGIN
            LOCK TABLE analysis_task, task_conversation, task_search IN ACCESS EXCLUSIVE MODE NOWAIT;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(0.05);
        END;
    END LOOP;
    LOCK TABLE analysis_task, task_conversation, task_search IN ACCESS EXCLUSIVE MODE;
    INSERT INTO task_search_single SELECT o.task_id, o.owner_user_id, o.seq, o.doc FROM task_search o
    ON CONFLICT (task_id, seq) DO NOTHING;
    DELETE FROM task_search_single n
    WHERE NOT EXISTS (SELECT 1 FROM task_search o WHERE o.task_id = n.task_id AND o.seq = n.seq);
    ALTER TABLE task_search_single
        ADD CONSTRAINT task_search_task_id_owner_user_id_fkey FOREIGN KEY (task_id, owner_user_id)
            REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
        ADD CONSTRAINT task_search_task_id_seq_fkey FOREIGN KEY (task_id, seq)
            REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE;
    FOR g IN
        SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee
        FROM pg_class c, aclexplode(c.relacl) a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = 'task_search'::regclass AND a.grantee <> c.relowner
    LOOP
        EXECUTE format('GRANT %s ON task_search_single TO %s', g.privilege_type, g.grantee);
    END LOOP;
    DROP TABLE task_search;
    ALTER TABLE task_search_single RENAME TO task_search;
    ALTER TABLE task_search RENAME CONSTRAINT task_search_single_pkey TO task_search_pkey;
    ALTER INDEX task_search_single_doc RENAME TO task_search_doc;
END $$;
-- +goose StatementEnd
