-- name: UpsertUser :one
-- Signs a user in: created on first sign-in, email and name refreshed at each one.
INSERT INTO app_user (provider, provider_user_id, email, name, avatar_url)
VALUES (@provider, @provider_user_id, @email, @name, @avatar_url)
ON CONFLICT (provider, provider_user_id) DO UPDATE
SET email = excluded.email, name = excluded.name, avatar_url = excluded.avatar_url, last_login_at = now()
RETURNING *;
