-- +goose Up
-- Dashboard sessions: the cookie holds a random token, the table its SHA-256
-- (a copy of the table signs nobody in), the user, the form token that
-- guards every form of the session (CSRF), and when the session ends.
CREATE TABLE platform.sessions (
    token_hash   bytea PRIMARY KEY,
    user_id      text NOT NULL REFERENCES platform.users (id) ON DELETE CASCADE,
    csrf_token   text NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_expires_idx ON platform.sessions (expires_at);

-- +goose Down
DROP TABLE platform.sessions;
