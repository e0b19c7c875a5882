-- +goose Up
-- Failed sign-ins per (e-mail, client address) and failed API keys per
-- client address (ADR 0046): how many in a row, and until when the next
-- attempt is refused. In PostgreSQL so that every instance refuses alike.
CREATE TABLE platform.failed_attempts (
    key            text        PRIMARY KEY,
    failures       integer     NOT NULL,
    last_failed_at timestamptz NOT NULL,
    wait_until     timestamptz NOT NULL
);

-- +goose Down
DROP TABLE platform.failed_attempts;
