-- +goose Up
-- Personal access tokens for /api/v1: a script or a CI job acts as the user who made
-- the token. Only the SHA-256 of the token is stored, as for sessions, so a copy of
-- this table authorises nobody; hint keeps the token's first characters so its owner
-- can tell their tokens apart.
CREATE TABLE api_token (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_user_id bigint      NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_hash    bytea       NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    hint          text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz
);
-- The owner's list of tokens, newest first.
CREATE INDEX api_token_owner_created ON api_token (owner_user_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE api_token;
