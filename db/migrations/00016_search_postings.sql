-- +goose Up
-- The conversation list's search reads posting lists instead of a full-text index of
-- documents: one row per term and batch of the quality pass, with the seqs of the
-- batch's kept conversations that have the term. Each conversation added ~250 entries
-- to a GIN index of documents, ~290 µs of PostgreSQL's CPU at 40,000 conversations,
-- the largest part of a task's work in the database; a batch of 500 conversations
-- shares most of its words, so here it adds a dozen rows per conversation. A search
-- reads a term's rows by the primary key, a word as the start of a term being a range
-- of it; term is in the "C" collation, so the range is one of bytes whatever the
-- database's locale. The empty term, which no search looks for, lists every indexed
-- conversation of the batch, so a task whose conversations were indexed is told from
-- one diagnosed before search existed even when none of them has a word.
-- toast_tuple_target keeps a batch's seqs (up to 2 KB) in the row, uncompressed.
CREATE TABLE task_search_term (
    task_id       uuid      NOT NULL,
    owner_user_id bigint    NOT NULL,
    term          text      COLLATE "C" NOT NULL,
    first_seq     integer   NOT NULL,
    seqs          integer[] NOT NULL,
    PRIMARY KEY (task_id, term, first_seq),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE
) WITH (toast_tuple_target = 8160);

-- The stored documents, in batches of 500 as the quality pass writes them.
INSERT INTO task_search_term (task_id, owner_user_id, term, first_seq, seqs)
SELECT s.task_id, s.owner_user_id, t.term, (s.seq - 1) / 500 * 500 + 1, array_agg(s.seq ORDER BY s.seq)
FROM task_search s, LATERAL (SELECT '' AS term UNION ALL SELECT lexeme FROM unnest(s.doc)) AS t
GROUP BY s.task_id, s.owner_user_id, t.term, (s.seq - 1) / 500 * 500 + 1;

DROP TABLE task_search;

-- +goose Down
CREATE TABLE task_search (
    task_id       uuid     NOT NULL,
    owner_user_id bigint   NOT NULL,
    seq           integer  NOT NULL,
    doc           tsvector NOT NULL,
    PRIMARY KEY (task_id, seq),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
    FOREIGN KEY (task_id, seq) REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE
);
CREATE INDEX task_search_doc ON task_search USING gin (doc);

INSERT INTO task_search (task_id, owner_user_id, seq, doc)
SELECT p.task_id, p.owner_user_id, s.seq,
       array_to_tsvector(coalesce(array_agg(p.term ORDER BY p.term) FILTER (WHERE p.term <> ''), '{}'))
FROM task_search_term p, unnest(p.seqs) AS s(seq)
GROUP BY p.task_id, p.owner_user_id, s.seq;

DROP TABLE task_search_term;
