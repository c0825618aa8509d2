-- Owner-scoped reads of a task's conversations for the report, without their messages.

-- name: ListTaskConversationSummaries :many
-- One line per conversation for report.json: its quality verdict, risk flags and the
-- outcome and summary of its diagnosis, in upload order. Messages stay in the table.
SELECT seq, external_id, message_count, qc_status, qc_reason, risk_flags, selected,
       diagnosis_status, diagnosis_pass, diagnosis_error,
       coalesce(diagnosis ->> 'outcome', '')::text AS outcome,
       coalesce(diagnosis ->> 'summary', '')::text AS summary
FROM task_conversation
WHERE task_id = @task_id AND owner_user_id = @owner_user_id
ORDER BY seq;
