-- name: InsertTaskDrivers :exec
-- A task's failure drivers, from a JSON array of rows (see pipeline.driverRow).
INSERT INTO task_driver (task_id, owner_user_id, idx, kind, feature, failed, succeeded, rate_with,
                         rate_without, lift, p_value, q_value, example_seqs, conversation_seqs,
                         example_turn, example_quote)
SELECT t.id, t.owner_user_id, (d.value ->> 'idx')::int, d.value ->> 'kind', d.value ->> 'feature',
       (d.value ->> 'failed')::int, (d.value ->> 'succeeded')::int, (d.value ->> 'rate_with')::real,
       (d.value ->> 'rate_without')::real, (d.value ->> 'lift')::real,
       (d.value ->> 'p_value')::double precision, (d.value ->> 'q_value')::double precision,
       ARRAY(SELECT s::int FROM jsonb_array_elements_text(d.value -> 'example_seqs') AS s),
       ARRAY(SELECT s::int FROM jsonb_array_elements_text(d.value -> 'conversation_seqs') AS s),
       (d.value ->> 'example_turn')::int, d.value ->> 'example_quote'
FROM analysis_task t, jsonb_array_elements(@drivers::jsonb) AS d(value)
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id;

-- name: ListTaskDrivers :many
-- A task's failure drivers, strongest first, with the external ids of their example
-- conversations in the order of example_seqs, and how many conversations the list of
-- each driver's conversations shows (the seqs stay in the table for that list).
SELECT d.task_id, d.owner_user_id, d.idx, d.kind, d.feature, d.failed, d.succeeded, d.rate_with,
       d.rate_without, d.lift, d.p_value, d.q_value, d.example_seqs, d.example_turn, d.example_quote,
       cardinality(d.conversation_seqs)::int AS conversations,
       ARRAY(SELECT c.external_id FROM unnest(d.example_seqs) WITH ORDINALITY AS e(seq, ord)
             JOIN task_conversation c
               ON c.task_id = d.task_id AND c.owner_user_id = d.owner_user_id AND c.seq = e.seq
             ORDER BY e.ord)::text[] AS example_ids
FROM task_driver d
WHERE d.task_id = @task_id AND d.owner_user_id = @owner_user_id
ORDER BY d.idx;

-- name: ListDriverNames :many
-- What the conversation list names its driver filter by, strongest first.
SELECT idx, kind, feature, cardinality(conversation_seqs)::int AS conversations
FROM task_driver
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY idx;
