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
