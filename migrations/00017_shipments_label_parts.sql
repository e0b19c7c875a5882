-- +goose Up
-- The per-parcel labels a carrier's booking answer brought, kept with the
-- booking's acceptance until the merged label is stored (ADR 0041): a label
-- step that failed after the answer (a merge, a crash) merges them again
-- instead of asking a carrier that may print a label only once.
CREATE TABLE shipments.label_parts (
    shipment_id text NOT NULL REFERENCES shipments.shipments (id) ON DELETE CASCADE,
    part        integer NOT NULL,
    format      text NOT NULL,
    data        bytea NOT NULL,
    PRIMARY KEY (shipment_id, part)
);

-- +goose Down
DROP TABLE shipments.label_parts;
