-- The diagnosis pipeline's writes to its task row. Each runs inside the lease's
-- transaction, after its fenced touch has locked the row, and is fenced again itself:
-- a worker that lost its lease changes nothing. None touches heartbeat_at; the
-- transaction's touch did.

-- name: SetTaskRunConfig :execrows
-- The analyzer and limits this run works with (pipeline.TaskConfig).
UPDATE analysis_task SET config = @config
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskFunnel :execrows
UPDATE analysis_task SET funnel = @funnel
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskLabelCheck :execrows
-- How the analysis agrees with the outcome labels, stored with the clusters.
UPDATE analysis_task SET label_check = @label_check
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskRiskSummary :execrows
UPDATE analysis_task SET risk_summary = @risk_summary
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskProviderDown :execrows
-- Since when the model provider has not answered, NULL once it answers again: the task
-- page says the task waits for it.
UPDATE analysis_task SET provider_down_since = sqlc.narg('since')::timestamptz
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: SetTaskStage :execrows
-- The stage and its progress, written with the checkpoint that reached it.
UPDATE analysis_task
SET stage = @stage, progress_done = @progress_done, progress_total = @progress_total
WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running';

-- name: CountTaskUnit :one
-- One finished unit other than a stored diagnosis (StoreConversationDiagnoses counts
-- those): the stage's progress, the task's model spend and, for a conversation that
-- could not be diagnosed, the isolated count. cancel_requested tells the worker, as a
-- heartbeat would, that the owner asked the task to stop.
WITH counted AS (
    UPDATE analysis_task
    SET progress_done = progress_done + 1,
        llm_calls = llm_calls + @calls,
        prompt_tokens = prompt_tokens + @prompt_tokens,
        completion_tokens = completion_tokens + @completion_tokens,
        isolated = isolated + @isolated
    WHERE id = @id AND owner_user_id = @owner_user_id AND attempt = @attempt AND status = 'running'
    RETURNING cancel_requested_at
)
SELECT count(*)::int AS counted,
       coalesce(bool_or(cancel_requested_at IS NOT NULL), false)::boolean AS cancel_requested
FROM counted;
