-- name: InsertSearchPostings :exec
-- The posting lists of one batch of the quality pass, which starts at @first_seq: for
-- each of @terms (distinct), @counts holds how many of the batch's kept conversations
-- have it, and @seqs those conversations, term after term, each term's ascending.
-- Written in the quality pass's fenced transaction; a pass that is done again after a
-- takeover makes the same batches and finds them there.
INSERT INTO task_search_term (task_id, owner_user_id, term, first_seq, seqs)
SELECT t.id, t.owner_user_id, p.term, @first_seq, (@seqs::int[])[p.start:p.start + p.n - 1]
FROM analysis_task t,
     (SELECT c.term, c.n, (sum(c.n) OVER (ORDER BY c.i) - c.n + 1)::int AS start
      FROM (SELECT u.term, u.i, (@counts::int[])[u.i] AS n
            FROM unnest(@terms::text[]) WITH ORDINALITY AS u(term, i)) AS c) AS p
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id
ON CONFLICT (task_id, term, first_seq) DO NOTHING;

-- name: TaskHasSearch :one
-- Whether the task's conversations can be searched: a task diagnosed before its
-- conversations' terms were stored has no list of the empty term, which lists the
-- indexed conversations of each batch whatever words they have.
SELECT EXISTS (SELECT 1 FROM task_search_term WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND term = '')::boolean;

-- name: CountSearchPostings :one
-- At least as many conversations as a search of @terms matches, and how many seqs
-- reading its lists would read: for each term, the conversations of every posting list
-- it reads, the fewest of those, and their sum over the terms. A term with @prefixes
-- set reads every term it starts, the range up to itself followed by U+10FFFF (the
-- highest code point: in the C collation, byte order, every string that starts with it
-- is below that); one without, only itself, the range up to itself followed by U+0001,
-- which nothing but the term itself is in (a text holds no U+0000). It reads the lists'
-- lengths only, to choose how the list is read.
SELECT coalesce(min(per_term.n), 0)::bigint AS at_most, coalesce(sum(per_term.n), 0)::bigint AS reads
FROM (SELECT (SELECT coalesce(sum(cardinality(p.seqs)), 0) FROM task_search_term p
              WHERE p.task_id = @task_id AND p.owner_user_id = @owner_user_id
                AND p.term >= q.term AND p.term < q.term || CASE WHEN (@prefixes::bool[])[q.i] THEN chr(1114111) ELSE chr(1) END) AS n
      FROM unnest(@terms::text[]) WITH ORDINALITY AS q(term, i)) AS per_term;

-- name: SearchConversationSeqs :many
-- The task's conversations that have every one of @terms (at most 31, read as
-- CountSearchPostings reads them: a bit for each, set by its lists), ascending, at most
-- @max_rows: a search few conversations match is listed from these, instead of walking
-- the list's sort.
SELECT h.seq::int AS seq
FROM (SELECT q.i, unnest(p.seqs) AS seq
      FROM unnest(@terms::text[]) WITH ORDINALITY AS q(term, i), task_search_term p
      WHERE p.task_id = @task_id AND p.owner_user_id = @owner_user_id
        AND p.term >= q.term AND p.term < q.term || CASE WHEN (@prefixes::bool[])[q.i] THEN chr(1114111) ELSE chr(1) END) AS h
GROUP BY h.seq
HAVING bit_or(1 << (h.i::int - 1)) = (1 << cardinality(@terms::text[])) - 1
ORDER BY h.seq
LIMIT @max_rows;

-- name: PreferSearchIndexes :exec
-- For the rest of the transaction, read the posting lists by their primary key, never
-- in a sequential scan: on a table that holds little but one task PostgreSQL may read
-- every list of the task for one term, where the key's range finds its few rows at
-- once. It reads no table: a setting of the transaction only.
SELECT set_config('enable_seqscan', 'off', true);
