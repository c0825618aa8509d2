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
-- The table is replaced by task_search_replace, which the Down uses too to put one
-- table back, and then drops.
SET LOCAL statement_timeout = 0;

-- +goose StatementBegin
-- Replaces task_search by a copy of it, in 16 partitions by task or in one table.
-- Other instances may be running: the documents are copied and indexed while the old
-- table stays in use, with no other table locked, since building the index is most of
-- the time. Only then are the old table and the two it refers to locked, holding back
-- every read and write of them (a worker's heartbeat among them) while what was
-- written meanwhile is copied, what was deleted is dropped, the foreign keys are
-- checked and the old table is dropped, which removes its foreign keys' triggers from
-- the other two and so needs them locked from reads too. The locks are taken all at
-- once, each try waiting 100 ms at most, so that waiting for one while holding
-- another cannot deadlock; after 300 tries (30 to 60 s) the migration fails, and the
-- next start tries again. It relies on READ COMMITTED (each statement sees what was committed
-- before it) and on documents never being updated, only inserted and deleted. The new
-- table gets the old one's owner and its grants (their grantor becomes the role that
-- migrates).
CREATE FUNCTION task_search_replace(partitioned boolean) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    staging constant text := CASE WHEN partitioned THEN 'task_search_partitioned' ELSE 'task_search_single' END;
    old_owner oid := (SELECT relowner FROM pg_class WHERE oid = 'task_search'::regclass);
    saved_lock_timeout constant text := current_setting('lock_timeout');
    g record;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'task_search_replace must run in READ COMMITTED, not %', current_setting('transaction_isolation');
    END IF;
    EXECUTE format('CREATE TABLE %I (
        task_id       uuid     NOT NULL,
        owner_user_id bigint   NOT NULL,
        seq           integer  NOT NULL,
        doc           tsvector NOT NULL,
        CONSTRAINT %I PRIMARY KEY (task_id, seq)
    ) %s', staging, staging || '_pkey', CASE WHEN partitioned THEN 'PARTITION BY HASH (task_id)' ELSE '' END);
    IF partitioned THEN
        FOR i IN 0..15 LOOP
            EXECUTE format('CREATE TABLE task_search_%s PARTITION OF %I FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, staging, i);
        END LOOP;
    END IF;
    EXECUTE format('INSERT INTO %I SELECT task_id, owner_user_id, seq, doc FROM task_search', staging);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (doc)', staging || '_doc', staging);

    PERFORM set_config('lock_timeout', '100ms', true);
    FOR attempt IN 1..300 LOOP
        BEGIN
            LOCK TABLE analysis_task, task_conversation, task_search IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt = 300 THEN
                RAISE EXCEPTION 'analysis_task, task_conversation and task_search could not be locked in 300 tries: other sessions kept holding them';
            END IF;
            PERFORM pg_sleep(0.1);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', saved_lock_timeout, true);
    EXECUTE format('INSERT INTO %I SELECT task_id, owner_user_id, seq, doc FROM task_search ON CONFLICT (task_id, seq) DO NOTHING', staging);
    EXECUTE format('DELETE FROM %I n WHERE NOT EXISTS (SELECT 1 FROM task_search o WHERE o.task_id = n.task_id AND o.seq = n.seq)', staging);
    EXECUTE format('ALTER TABLE %I
        ADD CONSTRAINT task_search_task_id_owner_user_id_fkey FOREIGN KEY (task_id, owner_user_id)
            REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
        ADD CONSTRAINT task_search_task_id_seq_fkey FOREIGN KEY (task_id, seq)
            REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE', staging);
    FOR g IN
        SELECT NULL::name AS col, a.privilege_type, a.is_grantable,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END AS grantee
        FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
        WHERE c.oid = 'task_search'::regclass AND a.grantee <> c.relowner
        UNION ALL
        SELECT att.attname, a.privilege_type, a.is_grantable,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END
        FROM pg_attribute att CROSS JOIN LATERAL aclexplode(att.attacl) a
        WHERE att.attrelid = 'task_search'::regclass AND att.attnum > 0 AND NOT att.attisdropped
    LOOP
        EXECUTE format('GRANT %s%s ON %I TO %s%s', g.privilege_type,
            CASE WHEN g.col IS NULL THEN '' ELSE format(' (%I)', g.col) END, staging, g.grantee,
            CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
    DROP TABLE task_search;
    EXECUTE format('ALTER TABLE %I RENAME TO task_search', staging);
    EXECUTE format('ALTER TABLE task_search RENAME CONSTRAINT %I TO task_search_pkey', staging || '_pkey');
    EXECUTE format('ALTER INDEX %I RENAME TO task_search_doc', staging || '_doc');
    IF old_owner <> (SELECT oid FROM pg_roles WHERE rolname = current_user) THEN
        FOR g IN SELECT relid FROM pg_partition_tree('task_search'::regclass) LOOP
            EXECUTE format('ALTER TABLE %s OWNER TO %s', g.relid::regclass, old_owner::regrole);
        END LOOP;
    END IF;
END
$fn$;
-- +goose StatementEnd

SELECT task_search_replace(true);

-- +goose Down
SET LOCAL statement_timeout = 0;
SELECT task_search_replace(false);
DROP FUNCTION task_search_replace(boolean);
