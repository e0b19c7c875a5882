-- +goose Up
-- The channels module: the write model and the list read model.
CREATE SCHEMA IF NOT EXISTS channels;

CREATE TABLE channels.channels (
    id               text PRIMARY KEY,
    account_id       text NOT NULL,
    name             text NOT NULL,
    description      text NOT NULL DEFAULT '',
    provider         text NOT NULL,
    status           text NOT NULL,
    settings         jsonb NOT NULL,  -- non-secret settings in clear
    secret_settings  text,            -- secret settings, AES-GCM sealed JSON
    validation_error text,
    validated_at     timestamptz,
    version          integer NOT NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    CONSTRAINT channels_account_name_key UNIQUE (account_id, name)
);

-- One row per channel, shaped like the API record (secrets already masked),
-- built from the module's events. version guards against out-of-order
-- events; deleted keeps a tombstone so a late event cannot resurrect a row.
CREATE TABLE channels.channel_list (
    id               text PRIMARY KEY,
    account_id       text NOT NULL,
    version          integer NOT NULL,
    deleted          boolean NOT NULL DEFAULT false,
    provider         text NOT NULL,
    status           text NOT NULL,
    created_at       timestamptz NOT NULL,
    record           json NOT NULL  -- json, not jsonb: keeps the API's key order
);
CREATE INDEX channel_list_account_idx ON channels.channel_list (account_id, created_at DESC, id DESC) WHERE NOT deleted;

-- +goose Down
DROP SCHEMA channels CASCADE;
