-- +goose Up
-- Dashboard users: people of an account who sign in to the dashboard with an
-- e-mail address and a password (argon2id hash, never the password).
CREATE TABLE platform.users (
    id            text PRIMARY KEY,
    account_id    text NOT NULL REFERENCES platform.accounts (id),
    email         text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL
);
-- One user per address across accounts: sign-in asks for the address only.
CREATE UNIQUE INDEX users_email_key ON platform.users (lower(email));
CREATE INDEX users_account_idx ON platform.users (account_id);

-- +goose Down
DROP TABLE platform.users;
