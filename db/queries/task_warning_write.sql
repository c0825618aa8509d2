-- name: InsertTaskWarning :exec
-- A warning shown to the task's owner: a unit that failed or something the worker
-- changed, with the stage and the unit (scope) it is about.
INSERT INTO task_warning (task_id, owner_user_id, stage, scope, message)
VALUES (@task_id, @owner_user_id, @stage, @scope, @message);
