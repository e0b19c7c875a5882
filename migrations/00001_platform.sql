-- +goose Up
-- The platform schema: accounts, API keys, rate-limit windows, idempotency
-- keys and the processed-messages ledger of idempotent event handlers.
CREATE SCHEMA IF NOT EXISTS platform;

CREATE TABLE platform.accounts (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    plan        text NOT NULL CHECK (plan IN ('free', 'standard', 'enterprise')),
    rate_limit  integer CHECK (rate_limit > 0),
    created_at  timestamptz NOT NULL,
    CONSTRAINT accounts_name_key UNIQUE (name)
);

CREATE TABLE platform.api_keys (
    id          text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES platform.accounts (id),
    name        text NOT NULL DEFAULT '',
    key_hash    bytea NOT NULL,
    key_prefix  text NOT NULL,
    permissions text[] NOT NULL,
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz,
    CONSTRAINT api_keys_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_keys_account_idx ON platform.api_keys (account_id);

CREATE TABLE platform.rate_limit_windows (
    account_id   text NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (account_id, window_start)
);

CREATE TABLE platform.idempotency_keys (
    account_id      text NOT NULL,
    key             text NOT NULL,
    fingerprint     bytea NOT NULL,
    state           text NOT NULL CHECK (state IN ('running', 'done')),
    claim_token     text NOT NULL,  -- who holds a running claim
    response_status integer,
    response_header jsonb,
    response_body   bytea,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON platform.idempotency_keys (created_at);

CREATE TABLE platform.processed_messages (
    handler      text NOT NULL,
    message_uuid text NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (handler, message_uuid)
);

-- +goose Down
DROP SCHEMA platform CASCADE;
