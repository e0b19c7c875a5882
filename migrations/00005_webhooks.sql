-- +goose Up
-- The webhooks module: subscriptions, the deliveries owed to them and the
-- log of every attempt.
CREATE SCHEMA IF NOT EXISTS webhooks;

-- A deleted subscription keeps a tombstone (deleted_at) for 30 days so the
-- logs of its last deliveries stay readable; the API treats it as gone.
CREATE TABLE webhooks.subscriptions (
    id          text PRIMARY KEY,
    account_id  text NOT NULL,
    name        text NOT NULL,
    url         text NOT NULL,
    events      text[] NOT NULL,
    secret      text NOT NULL,   -- AES-GCM sealed
    active      boolean NOT NULL,
    version     integer NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    deleted_at  timestamptz
);
CREATE INDEX subscriptions_account_idx ON webhooks.subscriptions (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- One row per (subscription, event): the body signed and sent on every
-- attempt, and the retry schedule. next_attempt_at is NULL once the delivery
-- succeeded, failed for good or was cancelled; lease_until marks an attempt
-- in flight.
CREATE TABLE webhooks.deliveries (
    id               bigserial PRIMARY KEY,
    subscription_id  text NOT NULL,
    account_id       text NOT NULL,
    event_id         text NOT NULL,
    event_type       text NOT NULL,
    body             text NOT NULL,
    attempts         integer NOT NULL DEFAULT 0,
    first_failed_at  timestamptz,
    next_attempt_at  timestamptz,
    lease_until      timestamptz,
    outcome          text NOT NULL DEFAULT 'pending',  -- pending, success, failed, cancelled
    created_at       timestamptz NOT NULL,
    CONSTRAINT deliveries_subscription_event_key UNIQUE (subscription_id, event_id)
);
CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX deliveries_created_idx ON webhooks.deliveries (created_at);

-- One row per attempt, shaped like the API's log record; written with the
-- attempt's outcome, read by the log endpoints.
CREATE TABLE webhooks.delivery_log (
    id               text PRIMARY KEY,
    subscription_id  text NOT NULL,
    account_id       text NOT NULL,
    delivery_id      bigint NOT NULL,
    event_id         text NOT NULL,
    event_type       text NOT NULL,
    status           text NOT NULL,
    url              text NOT NULL,
    request_headers  json NOT NULL,
    request_body     text NOT NULL,
    response_status  integer NOT NULL,
    response_body    text NOT NULL,
    duration_ms      integer NOT NULL,
    error_message    text,
    attempt          integer NOT NULL,
    next_retry_at    timestamptz,
    created_at       timestamptz NOT NULL
);
CREATE INDEX delivery_log_subscription_idx ON webhooks.delivery_log (subscription_id, created_at DESC, id DESC);
CREATE INDEX delivery_log_created_idx ON webhooks.delivery_log (created_at);

-- +goose Down
DROP SCHEMA webhooks CASCADE;
