-- +goose Up
-- The language a person chose for the pages (the header's 中文 / English switch): en,
-- zh-CN, or empty until they choose, when the browser's Accept-Language decides. A
-- constant default, so adding it only changes the catalogue.
ALTER TABLE app_user ADD COLUMN locale text NOT NULL DEFAULT '' CHECK (locale IN ('', 'en', 'zh-CN'));

-- +goose Down
ALTER TABLE app_user DROP COLUMN locale;
