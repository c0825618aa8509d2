-- name: CreateSession :exec
-- Starts a session. Only the SHA-256 of the cookie's token is stored, so a copy of
-- this table signs nobody in.
INSERT INTO user_session (token_hash, user_id, created_at, last_seen_at, expires_at)
VALUES (@token_hash, @user_id,
        coalesce(sqlc.narg('now')::timestamptz, now()),
        coalesce(sqlc.narg('now')::timestamptz, now()),
        coalesce(sqlc.narg('now')::timestamptz, now()) + @ttl::interval);

-- name: GetSessionUser :one
-- The user behind a session cookie; an expired session is no session.
SELECT sqlc.embed(app_user), s.expires_at, s.last_seen_at
FROM user_session s
JOIN app_user ON app_user.id = s.user_id
WHERE s.token_hash = @token_hash
  AND s.expires_at > coalesce(sqlc.narg('now')::timestamptz, now());

-- name: TouchSession :execrows
-- Slides a live session: last_seen_at and the idle expiry move at most once a minute,
-- so an active browser costs one write a minute, not one per request; max_age caps a
-- session however active it stays.
UPDATE user_session
SET last_seen_at = coalesce(sqlc.narg('now')::timestamptz, now()),
    expires_at = least(coalesce(sqlc.narg('now')::timestamptz, now()) + @idle_ttl::interval,
                       created_at + @max_age::interval)
WHERE token_hash = @token_hash
  AND last_seen_at < coalesce(sqlc.narg('now')::timestamptz, now()) - interval '1 minute'
  AND expires_at > coalesce(sqlc.narg('now')::timestamptz, now());

-- name: DeleteSession :execrows
-- Signs a session out (or retires it at the next sign-in of the same browser) and
-- tells every instance, on checkup_sessions, when the transaction commits: each drops
-- the session from its cache of sessions (app/auth).
DELETE FROM user_session WHERE token_hash = @token_hash
RETURNING pg_notify('checkup_sessions', encode(token_hash, 'hex'));

-- name: ListenSessions :exec
-- Subscribes an instance's dedicated connection to checkup_sessions, whose payload is
-- the hex SHA-256 of a session's token that ended.
LISTEN checkup_sessions;

-- name: PurgeExpiredSessions :execrows
-- Maintenance: expired rows are already ignored; this only keeps the table small.
DELETE FROM user_session
WHERE expires_at <= coalesce(sqlc.narg('now')::timestamptz, now());
