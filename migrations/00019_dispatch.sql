-- +goose Up
-- The dispatch module: courier pickups and handover manifests (issue 33),
-- and what the module knows of shipments.
CREATE SCHEMA IF NOT EXISTS dispatch;

-- The shipments as the shipments module's events last said them, one row
-- a shipment (record: the event's snapshot), kept by a projection of the
-- shipments stream, version-guarded, deleted ones as tombstones.
CREATE TABLE dispatch.shipments (
    id                  text PRIMARY KEY,
    account_id          text NOT NULL,
    shipping_channel_id text NOT NULL,
    status              text NOT NULL,
    version             integer NOT NULL,
    deleted             boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL,
    record              json NOT NULL
);
CREATE INDEX shipments_channel_idx ON dispatch.shipments (shipping_channel_id, created_at, id) WHERE status = 'created' AND NOT deleted;

CREATE TABLE dispatch.pickups (
    id                  text PRIMARY KEY,
    account_id          text NOT NULL,
    shipping_channel_id text NOT NULL,
    provider            text NOT NULL,
    status              text NOT NULL,
    date                date NOT NULL,
    ready_from          text NOT NULL,
    ready_until         text NOT NULL,
    address             jsonb NOT NULL,
    contact             jsonb NOT NULL,
    shipment_ids        text[] NOT NULL,
    parcel_count        integer NOT NULL,
    total_weight_kg     numeric NOT NULL,
    note                text NOT NULL,
    confirmation_number text NOT NULL DEFAULT '',
    confirmed_date      text NOT NULL DEFAULT '',
    confirmed_from      text NOT NULL DEFAULT '',
    confirmed_until     text NOT NULL DEFAULT '',
    carrier_handle      text NOT NULL DEFAULT '',  -- what the carrier needs to cancel; never shown
    order_handle        text NOT NULL DEFAULT '',  -- what an order that confirms later was accepted under
    version             integer NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    cancelled_at        timestamptz
);
-- One courier a day per channel: a second order of the date is refused
-- while the first stands (cancel it first), which also keeps a retried
-- order from reaching the carrier twice.
CREATE UNIQUE INDEX pickups_channel_date_key ON dispatch.pickups (shipping_channel_id, date) WHERE status <> 'cancelled';
CREATE INDEX pickups_ordering_idx ON dispatch.pickups (updated_at) WHERE status = 'ordering';

-- A shipment is on at most one active pickup and at most one manifest.
CREATE TABLE dispatch.pickup_shipments (
    shipment_id text PRIMARY KEY,
    pickup_id   text NOT NULL
);
CREATE INDEX pickup_shipments_pickup_idx ON dispatch.pickup_shipments (pickup_id);

CREATE TABLE dispatch.manifests (
    id                  text PRIMARY KEY,
    account_id          text NOT NULL,
    shipping_channel_id text NOT NULL,
    provider            text NOT NULL,
    status              text NOT NULL,
    date                text NOT NULL,
    shipment_ids        text[] NOT NULL,
    parcel_count        integer NOT NULL,
    total_weight_kg     numeric NOT NULL,
    sender              jsonb NOT NULL,
    origin              jsonb NOT NULL,
    document            text NOT NULL,
    carrier_reference   text NOT NULL DEFAULT '',
    version             integer NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);

CREATE TABLE dispatch.manifest_shipments (
    shipment_id text PRIMARY KEY,
    manifest_id text NOT NULL
);
CREATE INDEX manifest_shipments_manifest_idx ON dispatch.manifest_shipments (manifest_id);

CREATE TABLE dispatch.manifest_documents (
    manifest_id text PRIMARY KEY,
    data        bytea NOT NULL
);

-- The list read models: one row an item, shaped like the API record.
CREATE TABLE dispatch.pickup_list (
    id                  text PRIMARY KEY,
    account_id          text NOT NULL,
    version             integer NOT NULL,
    shipping_channel_id text NOT NULL,
    date                text NOT NULL,
    status              text NOT NULL,
    created_at          timestamptz NOT NULL,
    record              json NOT NULL
);
CREATE INDEX pickup_list_account_idx ON dispatch.pickup_list (account_id, created_at DESC, id DESC);

CREATE TABLE dispatch.manifest_list (
    id                  text PRIMARY KEY,
    account_id          text NOT NULL,
    version             integer NOT NULL,
    shipping_channel_id text NOT NULL,
    date                text NOT NULL,
    created_at          timestamptz NOT NULL,
    record              json NOT NULL
);
CREATE INDEX manifest_list_account_idx ON dispatch.manifest_list (account_id, created_at DESC, id DESC);

-- +goose Down
DROP SCHEMA dispatch CASCADE;
