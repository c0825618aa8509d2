-- +goose Up
-- A word driver ("the agent wrote: date") with the turn of its first example
-- conversation it is written in and a quote around it, so whoever reads it sees what
-- the word is about. Null for the other kinds, for drivers stored before, and for a
-- pair whose words were found nowhere. Adding a nullable column only changes the
-- catalogue: the lock it takes is held for a moment, once the few statements that
-- read or write task_driver have finished.
ALTER TABLE task_driver ADD COLUMN example_turn integer, ADD COLUMN example_quote text;

-- +goose Down
ALTER TABLE task_driver DROP COLUMN example_turn, DROP COLUMN example_quote;
