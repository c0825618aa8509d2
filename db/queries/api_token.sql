-- Personal access tokens. The token is shown to its owner once, when it is made; the
-- table keeps its SHA-256 (looked up by the bearer's hash on every API request) and a
-- hint of its first characters.

-- name: CreateAPIToken :one
-- A new token for the owner, unless they already have @max_tokens: no row then.
INSERT INTO api_token (owner_user_id, name, token_hash, hint, created_at)
SELECT @owner_user_id, @name, @token_hash, @hint, coalesce(sqlc.narg('now')::timestamptz, now())
WHERE (SELECT count(*) FROM api_token WHERE owner_user_id = @owner_user_id) < @max_tokens::int
RETURNING id, name, hint, created_at, last_used_at;

-- name: ListAPITokens :many
-- The owner's tokens, newest first.
SELECT id, name, hint, created_at, last_used_at
FROM api_token
WHERE owner_user_id = @owner_user_id
ORDER BY created_at DESC, id DESC;

-- name: DeleteAPIToken :one
-- Revokes a token: the row goes, so the next request with it is refused. No row means
-- the token is not the owner's.
DELETE FROM api_token
WHERE id = @id AND owner_user_id = @owner_user_id
RETURNING name;

-- name: AuthenticateAPIToken :one
-- owner-exempt: the bearer token is the credential that names the owner: it is looked up by its hash before any owner is known, and the owner it returns scopes every later query of the request.
-- The user behind a bearer token.
SELECT t.id AS token_id, t.last_used_at, sqlc.embed(app_user)
FROM api_token t
JOIN app_user ON app_user.id = t.owner_user_id
WHERE t.token_hash = @token_hash;

-- name: TouchAPIToken :execrows
-- Records a token's use, at most once a minute, so a polling script costs one write a
-- minute, not one per request.
UPDATE api_token
SET last_used_at = coalesce(sqlc.narg('now')::timestamptz, now())
WHERE id = @id AND owner_user_id = @owner_user_id
  AND (last_used_at IS NULL OR last_used_at < coalesce(sqlc.narg('now')::timestamptz, now()) - interval '1 minute');

-- name: LockAPIToken :one
-- The token an upload came with, still there, locked until the end of the
-- transaction that publishes the upload's task, so a revocation meanwhile either comes
-- before it (no row: the task is not created) or waits for its commit.
SELECT id FROM api_token
WHERE id = @id AND owner_user_id = @owner_user_id
FOR SHARE;
