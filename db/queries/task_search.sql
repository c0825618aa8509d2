-- name: InsertConversationSearch :exec
-- The search documents of a batch of kept conversations, one element of each array per
-- conversation; @terms are each conversation's search terms (search.Terms) joined by
-- spaces, which no term contains. Written in the quality pass's fenced transaction; a
-- pass that is done again after a takeover finds them there.
INSERT INTO task_search (task_id, owner_user_id, seq, doc)
SELECT t.id, t.owner_user_id, v.seq, array_to_tsvector(string_to_array(v.terms, ' '))
FROM analysis_task t, (SELECT unnest(@seqs::int[]) AS seq, unnest(@terms::text[]) AS terms) AS v
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id
ON CONFLICT (task_id, seq) DO NOTHING;

-- name: TaskHasSearch :one
-- Whether the task's conversations can be searched: a task diagnosed before search
-- documents were stored has none.
SELECT EXISTS (SELECT 1 FROM task_search WHERE task_id = @task_id AND owner_user_id = @owner_user_id)::boolean;

-- name: TaskSearchHoldsNames :one
-- Whether the task's search documents hold names joined by underscores whole: those of
-- this version hold @marker (search.NamesTerm). Read from the task's first document; a
-- task with none is taken to, as its documents will be.
SELECT coalesce((SELECT @marker::text = ANY (tsvector_to_array(doc)) FROM task_search
                 WHERE task_id = @task_id AND owner_user_id = @owner_user_id
                 ORDER BY seq LIMIT 1), true)::boolean AS holds_names;

-- name: SearchConversationSeqs :many
-- Up to @max_rows of a task's conversations whose search document matches @query (a
-- tsquery of search.Query's terms), read from the words' index: a search few
-- conversations match is listed from these, instead of walking the list's sort.
SELECT seq FROM task_search
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND doc @@ sqlc.arg('query')::text::tsquery
LIMIT @max_rows;

-- name: PreferSearchIndexes :exec
-- For the rest of the transaction, read the search documents by their indexes, never
-- in a sequential scan: PostgreSQL does not count reading each document from TOAST, so
-- on a table that holds little but one task it would read every document of the task
-- for a rare word, where the words' index finds its few conversations at once. It reads
-- no table: a setting of the transaction only.
SELECT set_config('enable_seqscan', 'off', true);
