-- name: GetTaskConversation :one
SELECT * FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq = @seq;

-- name: GetConversationMessages :one
-- One conversation's messages, as text for the pipeline to decode.
SELECT messages::text AS messages FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq = @seq;

-- name: FindConversationSeq :many
-- The conversation of the task with this id from the upload, if any: a search for an
-- id goes to it. :many so that none is an empty result.
SELECT seq FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND external_id = @external_id;

-- name: ListConversationIDsByPrefix :many
-- The task's conversations whose id from the upload starts with @prefix, by id, at
-- most @max_rows: a search for the start of an id lists them. It reads the task's ids
-- in the (task_id, external_id) index.
SELECT seq, external_id FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND starts_with(external_id, @prefix::text)
ORDER BY external_id
LIMIT @max_rows;

-- name: ListConversationMessagesBySeq :many
-- The messages of the task's conversations @seqs (a page of search results), as text
-- for the snippets that show where each matched.
SELECT seq, messages::text AS messages FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq = ANY(@seqs::int[]);

-- The pipeline's reads and writes of a task's conversations. Writes run inside the
-- lease's transaction (lease.InTx), whose first statement is the fenced touch of the
-- task row, so a worker that lost its lease writes nothing.

-- Pages of a task's conversations are ranges of seq, which an upload numbers 1..n
-- without gaps: (@after_seq, @through_seq]. A page then reads at most that many rows
-- whatever plan PostgreSQL picks. A LIMIT instead lets a plan made before the upload's
-- statistics exist (estimated 1 row) fetch, sort and cast every remaining row of the
-- task to return a page: each page O(rows left), the pass O(n²).

-- name: ListConversationsAfter :many
-- One page of the task's conversations in upload order, for the quality checks and
-- risk screening, with the outcome label the search for failure drivers reads.
-- Messages come as text: the pipeline decodes them once, instead of the driver checking
-- the JSON first.
SELECT seq, external_id, messages::text AS messages, label
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq > @after_seq AND seq <= @through_seq
ORDER BY seq;

-- name: ListKeptRiskFlags :many
-- The risk flags of the kept conversations of one page, in upload order, to choose the
-- conversations to diagnose and summarise the flags.
SELECT seq, external_id, risk_flags
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq > @after_seq AND seq <= @through_seq
  AND qc_status = 'kept'
ORDER BY seq;

-- name: ListConversationsToDiagnose :many
-- The conversations of one page selected for diagnosis and not finished yet, in upload
-- order: a resumed task skips those an earlier attempt diagnosed or isolated. The label
-- and risk flags are what the search for failure drivers reads beside the diagnosis.
SELECT seq, external_id, messages::text AS messages, label, risk_flags
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq > @after_seq AND seq <= @through_seq
  AND selected AND diagnosis_status = 'pending'
ORDER BY seq;

-- name: ListSeqsToDiagnose :many
-- The seqs of the conversations selected for diagnosis and not finished yet, in upload
-- order, for a run that still holds their transcripts decoded from its quality pass.
SELECT seq
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND selected AND diagnosis_status = 'pending'
ORDER BY seq;

-- name: CountConversationDiagnoses :one
-- How far diagnosis got: conversations selected, and how many of them are diagnosed
-- or isolated.
SELECT count(*) FILTER (WHERE selected)::int AS selected,
       count(*) FILTER (WHERE selected AND diagnosis_status = 'done')::int AS done,
       count(*) FILTER (WHERE selected AND diagnosis_status = 'isolated')::int AS isolated
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id;

-- name: FirstConversationError :many
-- The first isolated conversation's error, for the reason of a task nothing of which
-- could be diagnosed.
SELECT external_id, diagnosis_error
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND diagnosis_status = 'isolated'
ORDER BY seq
LIMIT 1;

-- name: SetConversationQuality :execrows
-- The quality verdicts and risk flags of the conversations @first_seq,
-- @first_seq + 1, … (element i of each array for seq @first_seq + i - 1; each element
-- of @flags a JSON array), in one write of each row. With @select_kept it also records
-- the diagnosis sample of a task that diagnoses every kept conversation: the kept ones
-- selected and pending, the others skipped. The rows are found by their seq range and
-- their values by position, with no join: a join of the batch to the table, planned
-- on statistics taken while the upload's COPY was not committed yet (a table believed
-- empty), read every row of the task for each batch. The pass refreshes a large task's
-- statistics first (MaintenanceAnalyzeConversations), but may not be allowed to.
WITH batch AS (SELECT @first_seq::int AS first_seq)
UPDATE task_conversation c
SET qc_status = (@qc_statuses::text[])[c.seq - batch.first_seq + 1],
    qc_reason = (@qc_reasons::text[])[c.seq - batch.first_seq + 1],
    content_hash = (@content_hashes::bytea[])[c.seq - batch.first_seq + 1],
    risk_flags = CAST((@flags::text[])[c.seq - batch.first_seq + 1] AS jsonb),
    selected = CASE WHEN @select_kept::boolean THEN (@qc_statuses::text[])[c.seq - batch.first_seq + 1] = 'kept'
                    ELSE c.selected END,
    diagnosis_status = CASE WHEN NOT @select_kept::boolean THEN c.diagnosis_status
                            WHEN (@qc_statuses::text[])[c.seq - batch.first_seq + 1] = 'kept' THEN 'pending'
                            ELSE 'skipped' END
FROM batch
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id
  AND c.seq >= batch.first_seq AND c.seq < batch.first_seq + cardinality(@qc_statuses::text[]);

-- name: SelectConversations :execrows
-- Records the diagnosis sample: conversation seq is selected and pending when element
-- seq of @chosen is true, skipped otherwise. An element per row, not a search of a list
-- of seqs, so the statement costs the same per row at any size.
UPDATE task_conversation c
SET selected = coalesce((@chosen::boolean[])[c.seq], false),
    diagnosis_status = CASE WHEN coalesce((@chosen::boolean[])[c.seq], false) THEN 'pending' ELSE 'skipped' END
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id;

-- name: StoreConversationDiagnoses :one
-- The checkpoint of a group of diagnosed conversations in one statement: each one's
-- diagnosis (one element of each array per conversation) with the highest severity and
-- the categories of its findings that are not expected behaviour, its findings (from the
-- diagnosis's findings array, idx their position, evidence marked verified) and the
-- task's counters — progress, model spend and how the answers became valid — counted
-- from the conversations stored. Only a conversation still pending is stored, so a
-- checkpoint is never written twice. cancel_requested tells the worker, as a heartbeat
-- would, that the owner asked the task to stop.
--
-- The input is MATERIALIZED, each diagnosis parsed once there: inlined, a generic plan
-- may read it again for every row of the task, parsing every diagnosis each time. The
-- rows are bounded by the group's lowest and highest seq too, so that a plan made on
-- statistics taken during the upload's COPY reads the group's rows, not the task's.
WITH input AS MATERIALIZED (
    SELECT unnest(@seqs::int[]) AS seq, unnest(@diagnoses::text[])::jsonb AS diagnosis,
           unnest(@passes::text[]) AS pass, unnest(@calls::int[]) AS calls,
           unnest(@prompt_tokens::bigint[]) AS prompt_tokens,
           unnest(@completion_tokens::bigint[]) AS completion_tokens
), conv AS (
    UPDATE task_conversation c
    SET diagnosis = input.diagnosis, diagnosis_status = 'done', diagnosis_pass = input.pass,
        diagnosis_error = '', diagnosed_at = coalesce(sqlc.narg('now')::timestamptz, now()),
        failure_score = (input.diagnosis ->> 'failureScore')::real,
        failed_turn = coalesce((input.diagnosis ->> 'failedTurn')::int, 0),
        max_severity = coalesce((SELECT max((f ->> 'severity')::int) FROM jsonb_array_elements(input.diagnosis -> 'findings') AS f
                                 WHERE NOT coalesce((f ->> 'expected')::boolean, false)), 0),
        finding_categories = ARRAY(SELECT DISTINCT f ->> 'category' FROM jsonb_array_elements(input.diagnosis -> 'findings') AS f
                                   WHERE NOT coalesce((f ->> 'expected')::boolean, false) ORDER BY 1)
    FROM input
    WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = input.seq
      AND c.seq BETWEEN (SELECT min(seq) FROM input) AND (SELECT max(seq) FROM input)
      AND c.diagnosis_status = 'pending'
    RETURNING c.task_id, c.owner_user_id, c.seq, c.diagnosis, input.pass, input.calls,
              input.prompt_tokens, input.completion_tokens
), findings AS (
    INSERT INTO task_finding (task_id, owner_user_id, conversation_seq, idx, type, category, title,
                              description, severity, confidence, priority_score, evidence, expected, policy, text)
    SELECT conv.task_id, conv.owner_user_id, conv.seq, (f.ord - 1)::int, f.value ->> 'type',
           f.value ->> 'category', f.value ->> 'title', coalesce(f.value ->> 'description', ''),
           (f.value ->> 'severity')::int, (f.value ->> 'confidence')::real,
           (f.value ->> 'priorityScore')::real, coalesce(f.value -> 'evidence', '[]'::jsonb),
           coalesce((f.value ->> 'expected')::boolean, false), coalesce(f.value ->> 'policy', ''),
           f.value -> 'text'
    FROM conv, jsonb_array_elements(conv.diagnosis -> 'findings') WITH ORDINALITY AS f(value, ord)
    RETURNING 1
), totals AS (
    SELECT count(*)::int AS stored, coalesce(sum(calls), 0)::int AS calls,
           coalesce(sum(prompt_tokens), 0)::bigint AS prompt_tokens,
           coalesce(sum(completion_tokens), 0)::bigint AS completion_tokens,
           (count(*) FILTER (WHERE pass = 'first_pass'))::int AS first_pass_valid,
           (count(*) FILTER (WHERE pass = 'repaired'))::int AS repaired
    FROM conv
), counted AS (
    UPDATE analysis_task t
    SET progress_done = t.progress_done + totals.stored,
        llm_calls = t.llm_calls + totals.calls,
        prompt_tokens = t.prompt_tokens + totals.prompt_tokens,
        completion_tokens = t.completion_tokens + totals.completion_tokens,
        first_pass_valid = t.first_pass_valid + totals.first_pass_valid,
        repaired = t.repaired + totals.repaired
    FROM totals
    WHERE t.id = @task_id AND t.owner_user_id = @owner_user_id AND t.attempt = @attempt AND t.status = 'running'
      AND totals.stored > 0
    RETURNING t.cancel_requested_at
)
SELECT (SELECT stored FROM totals) AS stored, (SELECT count(*) FROM findings)::int AS findings,
       (SELECT count(*) FROM counted)::int AS counted,
       coalesce((SELECT bool_or(cancel_requested_at IS NOT NULL) FROM counted), false)::boolean AS cancel_requested;

-- name: ListConversationOutcomes :many
-- Every diagnosed conversation's outcome label and failure score, in upload order, with
-- its sizes: what splits the clusters by outcome and checks the analysis (and counting
-- alone) against the labels.
SELECT seq, label, failure_score, turns, user_turns, tool_calls
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND diagnosis_status = 'done'
ORDER BY seq;

-- name: ListLabelledConversationsAfter :many
-- The diagnosed conversations of one page that carry an outcome label, in upload order,
-- with their risk flags and the categories of their findings that are not expected
-- behaviour (stored with the diagnosis): what the search for failure drivers reads
-- when the run that diagnosed them could not count them as it went (a resumed task),
-- and what its second pass reads for the conversations of each driver. The drivers are
-- searched while the clusters are built, so they take the findings' own word on what
-- is expected, before the owner's rules (RefreshIssueColumns), as the run's counts do.
SELECT c.seq, c.label, c.messages::text AS messages, c.risk_flags, c.finding_categories AS categories
FROM task_conversation c
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq > @after_seq AND c.seq <= @through_seq
  AND c.diagnosis_status = 'done' AND c.label IS NOT NULL
ORDER BY c.seq;

-- A task's conversations as checkpoints: each diagnosis is stored as it completes, so a
-- task that is taken over or resumed skips the ones already done.

-- name: ListConversationCheckpoints :many
-- What a task has finished so far: each conversation's diagnosis status in upload
-- order, without its messages.
SELECT seq, diagnosis_status
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY seq;

-- name: SaveConversationDiagnosis :execrows
-- Stores one conversation's diagnosis status and document as given, without what
-- StoreConversationDiagnoses derives from a diagnosis (failure score, severity,
-- categories, findings): the pipeline records isolations with it, the orchestration
-- tests' handler its units. Run it inside the lease's transaction, so a worker that
-- lost its lease cannot write it.
UPDATE task_conversation
SET diagnosis = @diagnosis, diagnosis_status = @diagnosis_status,
    diagnosis_pass = sqlc.narg('diagnosis_pass'), diagnosis_error = @diagnosis_error,
    diagnosed_at = coalesce(sqlc.narg('now')::timestamptz, now())
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq = @seq;

-- name: RefreshIssueColumns :execrows
-- Derives again the most severe finding and the finding categories that are issues of
-- the conversations of clusters @idxs, from the findings and their clusters: a finding
-- is an issue unless its cluster is expected behaviour (an unclustered one, unless it
-- is itself). StoreConversationDiagnoses derived them from the findings alone, so an
-- owner's word on a cluster, a mark or a rule, changes them. A row that keeps its
-- values is not written.
WITH conv AS (
    SELECT DISTINCT unnest(k.conversation_seqs) AS seq
    FROM task_cluster k
    WHERE k.task_id = @task_id AND k.owner_user_id = @owner_user_id AND k.idx = ANY(@idxs::int[])
), issues AS (
    SELECT conv.seq,
           coalesce(max(f.severity) FILTER (WHERE NOT coalesce(k.expected, f.expected)), 0)::int AS max_severity,
           coalesce(array_agg(DISTINCT f.category ORDER BY f.category) FILTER (WHERE NOT coalesce(k.expected, f.expected)),
                    '{}')::text[] AS categories
    FROM conv
    JOIN task_finding f ON f.task_id = @task_id AND f.owner_user_id = @owner_user_id AND f.conversation_seq = conv.seq
    LEFT JOIN task_cluster k ON k.task_id = f.task_id AND k.owner_user_id = f.owner_user_id AND k.idx = f.cluster_idx
    GROUP BY conv.seq
)
UPDATE task_conversation c
SET max_severity = issues.max_severity, finding_categories = issues.categories
FROM issues
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = issues.seq
  AND (c.max_severity, c.finding_categories) IS DISTINCT FROM (issues.max_severity, issues.categories);

-- Owner-scoped reads of a task's conversations for the report, without their messages.

-- name: ListTaskConversationSummaries :many
-- One line per conversation of one page, (@after_seq, @through_seq], for report.json:
-- its quality verdict, risk flags and the outcome and summary of its diagnosis, in
-- upload order. Messages stay in the table.
SELECT seq, external_id, message_count, qc_status, qc_reason, risk_flags, selected,
       diagnosis_status, diagnosis_pass, diagnosis_error,
       coalesce(diagnosis ->> 'outcome', '')::text AS outcome,
       coalesce(diagnosis ->> 'summary', '')::text AS summary,
       label, failure_score, failed_turn, label_source, reviewed_label, reviewed_at
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND seq > @after_seq AND seq <= @through_seq
ORDER BY seq;

-- name: ListTaskConversations :many
-- One page of a task's kept conversations, at most @max_rows, sorted by @sort
-- ('failure': failure score, 'turns': messages, 'severity': the highest severity of
-- their findings; highest first, ties in upload order) after the cursor (the last
-- row's key and seq), filtered by whichever of the narg filters are set: a cluster's or
-- a driver's conversations, a finding category, a lowest severity, an outcome label, a
-- risk kind, a full-text query (a tsquery of search.Query's terms) or the seqs a
-- search matched (SearchConversationSeqs). Each row carries its most severe finding
-- that is not expected behaviour (by its cluster's standing, as RefreshIssueColumns
-- has it), in a cluster's list its most severe finding of that cluster too (why it is
-- listed, expected or not), whether it has findings at all, and its risk kinds. The
-- findings are looked up by key for each row of the page: written as EXISTS, the
-- planner hashes every finding of the task instead.
--
-- Run it planned with its parameters (store.planned): PostgreSQL then folds away the
-- sorts and filters not asked for and walks the one index of the sort asked for. A
-- cached generic plan could do neither. A query reads its matches from the words'
-- index once, into a hash the walk is checked against: probing each walked
-- conversation's document instead costs about four times as much a row, and a word
-- whose conversations sort last (as words of failure or of success do) is walked past
-- nearly the whole task before a page is found.
SELECT c.seq, c.external_id, c.message_count, c.label, c.label_source, c.reviewed_label, c.failure_score, c.max_severity,
       c.diagnosis_status, coalesce(c.diagnosis ->> 'outcome', '')::text AS outcome,
       ARRAY(SELECT DISTINCT k #>> '{}' FROM jsonb_path_query(c.risk_flags, '$[*].kind') AS k ORDER BY 1)::text[] AS risk_kinds,
       coalesce(top.type, '')::text AS top_type, coalesce(top.category, '')::text AS top_category,
       coalesce(top.title, '')::text AS top_title, (top.text -> 'title')::jsonb AS top_title_text, coalesce(top.severity, 0)::int AS top_severity,
       coalesce((SELECT f.title FROM task_finding f
                 WHERE f.task_id = c.task_id AND f.owner_user_id = c.owner_user_id AND f.conversation_seq = c.seq
                   AND f.cluster_idx = sqlc.narg('cluster')::int
                 ORDER BY f.severity DESC, f.priority_score DESC, f.idx LIMIT 1), '')::text AS issue_title,
       (SELECT f.text -> 'title' FROM task_finding f
        WHERE f.task_id = c.task_id AND f.owner_user_id = c.owner_user_id AND f.conversation_seq = c.seq
          AND f.cluster_idx = sqlc.narg('cluster')::int
        ORDER BY f.severity DESC, f.priority_score DESC, f.idx LIMIT 1)::jsonb AS issue_title_text,
       coalesce((SELECT true FROM task_finding f
                 WHERE f.task_id = c.task_id AND f.owner_user_id = c.owner_user_id AND f.conversation_seq = c.seq
                 LIMIT 1), false)::bool AS has_findings
FROM task_conversation c
LEFT JOIN LATERAL (
    SELECT f.type, f.category, f.title, f.text, f.severity
    FROM task_finding f
    WHERE f.task_id = c.task_id AND f.owner_user_id = c.owner_user_id AND f.conversation_seq = c.seq
      AND NOT coalesce((SELECT k.expected FROM task_cluster k
                        WHERE k.task_id = f.task_id AND k.owner_user_id = f.owner_user_id AND k.idx = f.cluster_idx), f.expected)
    ORDER BY f.severity DESC, f.priority_score DESC, f.idx
    LIMIT 1
) top ON true
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.qc_status = 'kept'
  AND (sqlc.narg('cluster')::int IS NULL OR c.seq IN (
        SELECT unnest(k.conversation_seqs) FROM task_cluster k
        WHERE k.task_id = @task_id AND k.owner_user_id = @owner_user_id AND k.idx = sqlc.narg('cluster')::int))
  AND (sqlc.narg('driver')::int IS NULL OR c.seq IN (
        SELECT unnest(d.conversation_seqs) FROM task_driver d
        WHERE d.task_id = @task_id AND d.owner_user_id = @owner_user_id AND d.idx = sqlc.narg('driver')::int))
  AND (sqlc.narg('category')::text IS NULL OR c.finding_categories @> ARRAY[sqlc.narg('category')::text])
  AND (sqlc.narg('min_severity')::int IS NULL OR c.max_severity >= sqlc.narg('min_severity')::int)
  AND (sqlc.narg('label')::text IS NULL OR c.label = sqlc.narg('label')::text)
  AND (sqlc.narg('risk')::text IS NULL OR c.risk_flags @> jsonb_build_array(jsonb_build_object('kind', sqlc.narg('risk')::text)))
  AND (sqlc.narg('query')::text IS NULL OR c.seq IN (
        SELECT s.seq FROM task_search s
        WHERE s.task_id = @task_id AND s.owner_user_id = @owner_user_id AND s.doc @@ sqlc.narg('query')::text::tsquery))
  AND (sqlc.narg('seqs')::int[] IS NULL OR c.seq = ANY(sqlc.narg('seqs')::int[]))
  AND (sqlc.narg('after_seq')::int IS NULL OR CASE @sort::text
        WHEN 'turns' THEN c.message_count <= sqlc.narg('after_turns')::int
             AND (c.message_count < sqlc.narg('after_turns')::int OR c.seq > sqlc.narg('after_seq')::int)
        WHEN 'severity' THEN c.max_severity <= sqlc.narg('after_severity')::int
             AND (c.max_severity < sqlc.narg('after_severity')::int OR c.seq > sqlc.narg('after_seq')::int)
        ELSE coalesce(c.failure_score, -1) <= sqlc.narg('after_score')::real
             AND (coalesce(c.failure_score, -1) < sqlc.narg('after_score')::real OR c.seq > sqlc.narg('after_seq')::int)
        END)
ORDER BY CASE WHEN @sort::text = 'turns' THEN c.message_count END DESC,
         CASE WHEN @sort::text = 'severity' THEN c.max_severity END DESC,
         CASE WHEN @sort::text NOT IN ('turns', 'severity') THEN coalesce(c.failure_score, -1) END DESC,
         c.seq
LIMIT @max_rows;

-- name: CountTaskConversations :one
-- How many of the task's kept conversations ListTaskConversations lets through with
-- the filters, counting no further than @max_rows: among @seqs (the few a search
-- matched), at most a few thousand primary-key reads, the total a search's page shows;
-- without, at most a walk of the task's conversations, as a page of a rare filter's
-- list is. Run it planned, as the list is, so the filters not asked for fold away.
SELECT count(*)::int FROM (
    SELECT 1
    FROM task_conversation c
    WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.qc_status = 'kept'
      AND (sqlc.narg('seqs')::int[] IS NULL OR c.seq = ANY(sqlc.narg('seqs')::int[]))
      AND (sqlc.narg('cluster')::int IS NULL OR c.seq IN (
            SELECT unnest(k.conversation_seqs) FROM task_cluster k
            WHERE k.task_id = @task_id AND k.owner_user_id = @owner_user_id AND k.idx = sqlc.narg('cluster')::int))
      AND (sqlc.narg('driver')::int IS NULL OR c.seq IN (
            SELECT unnest(d.conversation_seqs) FROM task_driver d
            WHERE d.task_id = @task_id AND d.owner_user_id = @owner_user_id AND d.idx = sqlc.narg('driver')::int))
      AND (sqlc.narg('category')::text IS NULL OR c.finding_categories @> ARRAY[sqlc.narg('category')::text])
      AND (sqlc.narg('min_severity')::int IS NULL OR c.max_severity >= sqlc.narg('min_severity')::int)
      AND (sqlc.narg('label')::text IS NULL OR c.label = sqlc.narg('label')::text)
      AND (sqlc.narg('risk')::text IS NULL OR c.risk_flags @> jsonb_build_array(jsonb_build_object('kind', sqlc.narg('risk')::text)))
    LIMIT @max_rows
) AS matched;

-- name: LimitLockWait :exec
-- For the rest of the transaction, a statement that would wait more than 5 s for a
-- lock fails instead: what may be skipped (the statistics' refreshes, the words'
-- index's merge) is not worth waiting behind an operator's VACUUM for.
SELECT set_config('lock_timeout', '5s', true);

-- name: MaintenanceAnalyzeConversations :exec
-- owner-exempt: refreshes the planner's statistics of the whole table, and reads no row for anyone.
-- Autovacuum may analyze the table while an upload's COPY is still uncommitted, and
-- then believes it empty until it analyzes it again; planned on that, a batch write
-- by seq range walks every index entry of the task for each batch. The quality pass of
-- a large task runs this first.
ANALYZE task_conversation;

-- name: TaskSearchPartition :one
-- The partition that holds the task's search documents (00018), by schema and name,
-- for a statement that takes its table by name only (ANALYZE); no row for a task with
-- no documents.
SELECT n.nspname::text AS schema_name, c.relname::text AS table_name
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = (SELECT s.tableoid FROM task_search s WHERE s.task_id = @task_id AND s.owner_user_id = @owner_user_id LIMIT 1);

-- name: MergeTaskSearchPending :exec
-- Moves the newest entries of the words' index of the task's partition into the index.
-- The index keeps the entries last written in a pending list (up to 4 MB) until
-- autovacuum merges them. Every search reads that list, and the planner counts it so
-- dear that while it is there it checks every document of the task instead of reading
-- the index: a search of a 40,000-conversation task took 125–190 ms instead of 30–45,
-- and 124–260 ms after another owner's task of 500 had filled the list. Every task's
-- quality pass runs this once its documents are stored, so the list holds little more
-- than the documents of passes still running.
SELECT gin_clean_pending_list(i.indexrelid)
FROM pg_catalog.pg_index i
WHERE i.indrelid = (SELECT s.tableoid FROM task_search s WHERE s.task_id = @task_id AND s.owner_user_id = @owner_user_id LIMIT 1)
  AND i.indexrelid IN (SELECT t.relid FROM pg_partition_tree('task_search_doc'::regclass) t WHERE t.isleaf);

-- Outcome labels the owner gives on the pages or through the API, and the scores of
-- the agent's detector.

-- name: SetReviewedLabels :many
-- Records the owner's outcome (failed, succeeded, or null to take a label back) for
-- each of the task's conversations in @labels ([{seq, outcome}]), with who and when.
-- A conversation whose upload carried a label keeps that one (it wins, and the page
-- shows both); the others take the owner's as their outcome label. Only kept
-- conversations are labelled; the rows that changed come back.
WITH input AS (
    SELECT (e ->> 'seq')::int AS seq, e ->> 'outcome' AS outcome
    FROM jsonb_array_elements(@labels::jsonb) AS e
)
UPDATE task_conversation c
SET reviewed_label = input.outcome,
    reviewed_by = @reviewer_id,
    reviewed_at = coalesce(sqlc.narg('now')::timestamptz, now()),
    label = CASE WHEN c.label_source = 'upload' THEN c.label ELSE input.outcome END,
    label_source = CASE WHEN c.label_source = 'upload' THEN 'upload'
                        WHEN input.outcome IS NULL THEN NULL ELSE 'reviewer' END
FROM input
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = input.seq AND c.qc_status = 'kept'
RETURNING c.seq, c.label, c.label_source, c.reviewed_label, c.reviewed_at;

-- name: FindLabelTargets :many
-- The task's conversations that @seqs or @external_ids (their ids in the export) name,
-- with their quality verdict and outcome label now: what a change of labels is checked
-- against, and whether it changes what the agent's detector learns.
SELECT seq, external_id, qc_status, label
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
  AND (seq = ANY(@seqs::int[]) OR external_id = ANY(@external_ids::text[]));

-- name: ListLabelCandidates :many
-- What choosing the conversations most useful to label reads: every kept, diagnosed
-- conversation of the task (what a detector learns from) in upload order, without its
-- messages, with the category of its most severe finding that is an issue (by its
-- cluster's standing, as ListTaskConversations has it; empty for none).
SELECT c.seq, c.label, c.failure_score, c.message_count,
       coalesce((SELECT f.category FROM task_finding f
                 WHERE f.task_id = c.task_id AND f.owner_user_id = c.owner_user_id AND f.conversation_seq = c.seq
                   AND NOT coalesce((SELECT k.expected FROM task_cluster k
                                     WHERE k.task_id = f.task_id AND k.owner_user_id = f.owner_user_id AND k.idx = f.cluster_idx), f.expected)
                 ORDER BY f.severity DESC, f.priority_score DESC, f.idx
                 LIMIT 1), '')::text AS top_category,
       (jsonb_array_length(c.risk_flags) > 0)::boolean AS flagged
FROM task_conversation c
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.qc_status = 'kept' AND c.diagnosis_status = 'done'
ORDER BY c.seq;

-- name: ListScoringConversationsAfter :many
-- One page of the task's kept conversations after @after_seq (with @diagnosed, the
-- diagnosed ones only), in upload order, with what the detector reads of them: their
-- messages but for those in @scored (read as ''), whose score is known already.
SELECT c.seq, c.label, CASE WHEN c.seq = ANY(@scored::int[]) THEN '' ELSE c.messages::text END AS messages,
       c.risk_flags, c.finding_categories AS categories,
       coalesce((c.diagnosis ->> 'failureScore')::real, 0)::real AS analyzer_score
FROM task_conversation c
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq > @after_seq
  AND c.qc_status = 'kept' AND (NOT @diagnosed::boolean OR c.diagnosis_status = 'done')
ORDER BY c.seq
LIMIT @max_rows;

-- name: SetFailureScores :execrows
-- Writes the detector's failure score of each conversation in @scores ([{seq, score}]).
WITH input AS (
    SELECT (e ->> 'seq')::int AS seq, (e ->> 'score')::real AS score
    FROM jsonb_array_elements(@scores::jsonb) AS e
)
UPDATE task_conversation c
SET failure_score = input.score
FROM input
WHERE c.task_id = @task_id AND c.owner_user_id = @owner_user_id AND c.seq = input.seq
  AND c.failure_score IS DISTINCT FROM input.score;

-- name: RestoreAnalyzerScores :execrows
-- Gives the task's diagnosed conversations back the failure scores their analyzer
-- gave: the agent has no detector any more.
UPDATE task_conversation
SET failure_score = (diagnosis ->> 'failureScore')::real
WHERE task_id = @task_id AND owner_user_id = @owner_user_id AND diagnosis_status = 'done'
  AND failure_score IS DISTINCT FROM (diagnosis ->> 'failureScore')::real;
