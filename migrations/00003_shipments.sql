-- +goose Up
-- The shipments module: the write model (with its booking work queue), the
-- merged labels, and the list read model with its counters.
CREATE SCHEMA IF NOT EXISTS shipments;

CREATE TABLE shipments.shipments (
    id              text PRIMARY KEY,
    account_id      text NOT NULL,
    channel_id      text NOT NULL,
    status          text NOT NULL,
    state           jsonb NOT NULL,   -- the aggregate as the domain defines it
    version         integer NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    -- Booking queue: due while the carrier has not answered. Workers claim
    -- due rows with FOR UPDATE SKIP LOCKED and hold them by a lease.
    booking_due     boolean NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    lease_until     timestamptz
);
CREATE INDEX shipments_booking_due_idx ON shipments.shipments (next_attempt_at) WHERE booking_due;

CREATE TABLE shipments.labels (
    shipment_id text PRIMARY KEY REFERENCES shipments.shipments (id) ON DELETE CASCADE,
    format      text NOT NULL,
    mime_type   text NOT NULL,
    data        bytea NOT NULL,
    created_at  timestamptz NOT NULL
);

-- One row per shipment shaped like the list summary, built from events
-- (version-guarded, tombstones for deletes). seq numbers an account's
-- shipments densely in the order the read model first saw them (newest =
-- highest): with the tombstones it lets a deep page be found by arithmetic
-- instead of skipping a hundred thousand index entries.
CREATE TABLE shipments.shipment_list (
    id                   text PRIMARY KEY,
    account_id           text NOT NULL,
    seq                  bigint NOT NULL,
    version              integer NOT NULL,
    deleted              boolean NOT NULL DEFAULT false,
    status               text NOT NULL,
    channel_id           text NOT NULL,
    reference_number     text NOT NULL,
    provider_shipment_id text,
    created_at           timestamptz NOT NULL,
    record               json NOT NULL,
    CONSTRAINT shipment_list_seq_key UNIQUE (account_id, seq)
);
CREATE INDEX shipment_list_status_idx ON shipments.shipment_list (account_id, status, seq DESC) WHERE NOT deleted;
CREATE INDEX shipment_list_channel_idx ON shipments.shipment_list (account_id, channel_id, seq DESC) WHERE NOT deleted;
CREATE INDEX shipment_list_deleted_idx ON shipments.shipment_list (account_id, seq) WHERE deleted;
CREATE INDEX shipment_list_reference_idx ON shipments.shipment_list (account_id, reference_number text_pattern_ops) WHERE NOT deleted;
CREATE INDEX shipment_list_provider_id_idx ON shipments.shipment_list (account_id, provider_shipment_id) WHERE NOT deleted;

-- The last seq handed out per account.
CREATE TABLE shipments.shipment_list_seq (
    account_id text PRIMARY KEY,
    last_seq   bigint NOT NULL
);

-- Live shipments per account, status and channel, kept by the projection so
-- meta.total never counts a million rows.
CREATE TABLE shipments.shipment_counts (
    account_id text NOT NULL,
    status     text NOT NULL,
    channel_id text NOT NULL,
    n          bigint NOT NULL,
    PRIMARY KEY (account_id, status, channel_id)
);

-- +goose Down
DROP SCHEMA shipments CASCADE;
