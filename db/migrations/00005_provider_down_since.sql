-- +goose Up
-- Since when the model provider has not answered a running task (NULL while it
-- answers): the worker pauses the task's model work behind a circuit breaker and the
-- task page says it is waiting for the provider, instead of isolating conversations.
ALTER TABLE analysis_task
    ADD COLUMN provider_down_since timestamptz;

-- +goose Down
ALTER TABLE analysis_task DROP COLUMN provider_down_since;
