-- +goose Up
-- The language a diagnosis is written in where a model writes it: its titles,
-- descriptions and Actions (the offline rules keep theirs by message key and read in
-- each reader's language). Chosen at upload, the owner's language by default; the
-- diagnoses made before were written in English. A constant default, so adding it only
-- changes the catalogue.
ALTER TABLE analysis_task ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'zh-CN'));

-- +goose Down
ALTER TABLE analysis_task DROP COLUMN language;
