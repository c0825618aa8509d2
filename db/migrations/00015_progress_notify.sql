-- +goose Up
-- A running task's progress, as the polling fragment shows it, is announced on
-- checkup_progress when its transaction commits, so every instance's cache of the
-- progress it serves follows the worker without a read per poll (app/web). A trigger
-- rather than each statement: no statement that changes what the page shows of a
-- running task can forget to tell.
--
-- Only changes that leave a task running announce, a takeover among them: a claim of
-- a pending task and the finish stay silent (the cache keeps a progress only briefly,
-- and only of a running task, so a finish reaches the page within that time), and so
-- do heartbeats, which change no column shown. A change of the count alone announces
-- at most once a second per task (progress_announced_at): a notification's commit
-- holds a lock every other notifying commit of the cluster waits for, and the worker
-- counts each diagnosed conversation. Within the transaction that announced (now()
-- is its start), every change announces again: a notification carries the row as it
-- was then, and the last one must hold the count the transaction commits; more
-- notifications in a transaction that already sends one add no wait. The payload is
-- the row's shown columns as JSON, keyed as GetAnalysisProgress's row names them in
-- Go, or only the id when a long error would not fit in a notification (8,000
-- bytes), which tells the instances to read the row again.
ALTER TABLE analysis_task ADD COLUMN progress_announced_at timestamptz;

-- +goose StatementBegin
CREATE FUNCTION analysis_task_announce_progress() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    payload text;
BEGIN
    IF (OLD.stage, OLD.progress_total, OLD.attempt, OLD.lost_count, OLD.error, OLD.cancel_requested_at,
        OLD.provider_down_since)
       IS NOT DISTINCT FROM
       (NEW.stage, NEW.progress_total, NEW.attempt, NEW.lost_count, NEW.error, NEW.cancel_requested_at,
        NEW.provider_down_since)
       AND OLD.progress_announced_at > now() - interval '1 second'
       AND OLD.progress_announced_at <> now() THEN
        RETURN NEW;
    END IF;
    NEW.progress_announced_at := now();
    payload := json_build_object(
        'ID', NEW.id, 'OwnerUserID', NEW.owner_user_id, 'Status', NEW.status, 'Stage', NEW.stage,
        'ProgressDone', NEW.progress_done, 'ProgressTotal', NEW.progress_total, 'Attempt', NEW.attempt,
        'LostCount', NEW.lost_count, 'Error', NEW.error, 'CancelRequestedAt', NEW.cancel_requested_at,
        'FinishedAt', NEW.finished_at, 'ProviderDownSince', NEW.provider_down_since)::text;
    IF octet_length(payload) > 7900 THEN
        payload := json_build_object('ID', NEW.id)::text;
    END IF;
    PERFORM pg_notify('checkup_progress', payload);
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER analysis_task_progress_changed BEFORE UPDATE ON analysis_task FOR EACH ROW
    WHEN (OLD.status = 'running' AND NEW.status = 'running' AND
          (OLD.stage, OLD.progress_done, OLD.progress_total, OLD.attempt, OLD.lost_count, OLD.error,
           OLD.cancel_requested_at, OLD.provider_down_since)
          IS DISTINCT FROM
          (NEW.stage, NEW.progress_done, NEW.progress_total, NEW.attempt, NEW.lost_count, NEW.error,
           NEW.cancel_requested_at, NEW.provider_down_since))
    EXECUTE FUNCTION analysis_task_announce_progress();

-- +goose Down
DROP TRIGGER analysis_task_progress_changed ON analysis_task;
DROP FUNCTION analysis_task_announce_progress();
ALTER TABLE analysis_task DROP COLUMN progress_announced_at;
