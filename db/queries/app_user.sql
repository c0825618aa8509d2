-- name: UpsertUser :one
-- Signs a user in: created on first sign-in, email and name refreshed at each one.
INSERT INTO app_user (provider, provider_user_id, email, name, avatar_url)
VALUES (@provider, @provider_user_id, @email, @name, @avatar_url)
ON CONFLICT (provider, provider_user_id) DO UPDATE
SET email = excluded.email, name = excluded.name, avatar_url = excluded.avatar_url, last_login_at = now()
RETURNING *;

-- name: SetUserLocale :exec
-- Stores the language a user chose and tells every instance, on checkup_sessions, to
-- drop the user's sessions from its cache of sessions (app/auth), which holds the user
-- as it was read: the next request reads the new choice.
WITH chosen AS (
    UPDATE app_user SET locale = @locale WHERE id = @id RETURNING id
)
SELECT pg_notify('checkup_sessions', encode(s.token_hash, 'hex'))
FROM user_session s JOIN chosen ON s.user_id = chosen.id;
