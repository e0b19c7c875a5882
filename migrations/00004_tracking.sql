-- +goose Up
-- The tracking module: tracking parcels (the write model, with their check
-- schedule as a work queue), their status updates, and the list read model.
CREATE SCHEMA IF NOT EXISTS tracking;

CREATE TABLE tracking.parcels (
    id                text PRIMARY KEY,
    account_id        text NOT NULL,
    channel_id        text NOT NULL,
    tracking_number   text NOT NULL,
    shipment_id       text,            -- set for internal parcels, made for a shipment
    state             jsonb NOT NULL,  -- the aggregate's fields as the domain defines them
    version           integer NOT NULL,
    -- Check schedule: due when next_check_at has passed; NULL once tracking
    -- stopped (terminal status, max_checks, channel gone). Workers claim due
    -- rows with FOR UPDATE SKIP LOCKED and hold them by a lease.
    next_check_at     timestamptz,
    lease_until       timestamptz,
    CONSTRAINT parcels_number_key UNIQUE (account_id, channel_id, tracking_number)
);
CREATE INDEX parcels_due_idx ON tracking.parcels (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE INDEX parcels_shipment_idx ON tracking.parcels (shipment_id) WHERE shipment_id IS NOT NULL;

-- What the carrier reported, one row per event; fingerprint keeps a
-- repeated report from being recorded twice.
CREATE TABLE tracking.status_updates (
    id           text PRIMARY KEY,
    parcel_id    text NOT NULL REFERENCES tracking.parcels (id) ON DELETE CASCADE,
    status       text,            -- NULL when the carrier's code maps to no standard status
    carrier_code text NOT NULL,
    description  text NOT NULL,
    location     text NOT NULL,
    occurred_at  timestamptz NOT NULL,
    fingerprint  text NOT NULL,
    CONSTRAINT status_updates_fingerprint_key UNIQUE (parcel_id, fingerprint)
);
CREATE INDEX status_updates_parcel_idx ON tracking.status_updates (parcel_id, occurred_at DESC, id DESC);

-- One row per tracking parcel shaped like the list item, built from events
-- (version-guarded upserts; a delete leaves a tombstone so a late event of
-- a deleted parcel cannot bring it back).
CREATE TABLE tracking.parcel_list (
    id              text PRIMARY KEY,
    account_id      text NOT NULL,
    version         integer NOT NULL,
    deleted         boolean NOT NULL DEFAULT false,
    status          text NOT NULL,
    channel_id      text NOT NULL,
    tracking_number text NOT NULL,
    created_at      timestamptz NOT NULL,
    record          json NOT NULL
);
CREATE INDEX parcel_list_account_idx ON tracking.parcel_list (account_id, created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX parcel_list_status_idx ON tracking.parcel_list (account_id, status, created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX parcel_list_channel_idx ON tracking.parcel_list (account_id, channel_id, created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX parcel_list_number_idx ON tracking.parcel_list (account_id, tracking_number text_pattern_ops) WHERE NOT deleted;

-- +goose Down
DROP SCHEMA tracking CASCADE;
