-- +goose Up
-- A task that stops running (finished, failed, handed back) announces it on
-- checkup_progress with its id alone, which tells every instance to forget its cached
-- progress and read the row again: a page polling the task sees the end at its next
-- poll, not after the cached copy expires, so its polling stops with the end instead
-- of one poll later. Once per task and attempt, at the end of each.

-- +goose StatementBegin
CREATE FUNCTION analysis_task_announce_left_running() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('checkup_progress', json_build_object('ID', NEW.id)::text);
    RETURN NEW;
END $$;
-- +goose StatementEnd

CREATE TRIGGER analysis_task_left_running AFTER UPDATE OF status ON analysis_task FOR EACH ROW
    WHEN (OLD.status = 'running' AND NEW.status <> 'running')
    EXECUTE FUNCTION analysis_task_announce_left_running();

-- +goose Down
DROP TRIGGER analysis_task_left_running ON analysis_task;
DROP FUNCTION analysis_task_announce_left_running();
