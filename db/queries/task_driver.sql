-- name: InsertTaskDrivers :exec
-- A task's failure drivers, from a JSON array of rows (see pipeline.driverRow).
INSERT INTO task_driver (task_id, owner_user_id, idx, kind, feature, failed, succeeded, rate_with,
                         rate_without, lift, p_value, q_value, example_seqs)
SELECT t.id, t.owner_user_id, (d.value ->> 'idx')::int, d.value ->> 'kind', d.value ->> 'feature',
       (d.value ->> 'failed')::int, (d.value ->> 'succeeded')::int, (d.value ->> 'rate_with')::real,
       (d.value ->> 'rate_without')::real, (d.value ->> 'lift')::real,
       (d.value ->> 'p_value')::double precision, (d.value ->> 'q_value')::double precision,
       ARRAY(SELECT s::int FROM jsonb_array_elements_text(d.value -> 'example_seqs') AS s)
FROM analysis_task t, jsonb_array_elements(@drivers::jsonb) AS d(value)
WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id;

-- name: ListTaskDrivers :many
-- A task's failure drivers, strongest first.
SELECT * FROM task_driver
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY idx;
