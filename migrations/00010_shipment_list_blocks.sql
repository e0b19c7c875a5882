-- +goose Up
-- Every list shape finds its page from counts instead of skipping entries
-- (ADR 0015). An account's list is cut into blocks of 4096 seqs; the
-- projection keeps the live shipments of each block per status and channel,
-- and per status alone, channel alone and neither ('' stands for "any"), so
-- each shape reads one run of at most last_seq / 4096 rows to find the block
-- its page starts in and skips fewer than 4096 index entries inside it. The
-- block size is the reader's and the projection's shipmentListBlock.
CREATE TABLE shipments.shipment_list_blocks (
    account_id text NOT NULL,
    status     text NOT NULL,
    channel_id text NOT NULL,
    block      bigint NOT NULL,
    n          bigint NOT NULL,
    PRIMARY KEY (account_id, status, channel_id, block)
);
INSERT INTO shipments.shipment_list_blocks (account_id, status, channel_id, block, n)
SELECT l.account_id, k.status, k.channel_id, l.seq / 4096, count(*)
FROM shipments.shipment_list l,
     LATERAL (VALUES (l.status, l.channel_id), (l.status, ''), ('', l.channel_id), ('', '')) AS k(status, channel_id)
WHERE NOT l.deleted
GROUP BY 1, 2, 3, 4;

-- Tombstones are no longer counted to place a page; the live rows get an
-- index of their own for the unfiltered list's skip inside a block.
DROP INDEX shipments.shipment_list_deleted_idx;
CREATE INDEX shipment_list_live_idx ON shipments.shipment_list (account_id, seq DESC) WHERE NOT deleted;

-- Covering indexes: the skip, the other filter and the search's matches are
-- answered from the index alone (index-only scans); only the page's rows are
-- read from the table.
DROP INDEX shipments.shipment_list_status_idx;
CREATE INDEX shipment_list_status_idx ON shipments.shipment_list (account_id, status, seq DESC) INCLUDE (channel_id) WHERE NOT deleted;
DROP INDEX shipments.shipment_list_channel_idx;
CREATE INDEX shipment_list_channel_idx ON shipments.shipment_list (account_id, channel_id, seq DESC) INCLUDE (status) WHERE NOT deleted;
DROP INDEX shipments.shipment_list_reference_idx;
CREATE INDEX shipment_list_reference_idx ON shipments.shipment_list (account_id, reference_number text_pattern_ops) INCLUDE (seq, status, channel_id) WHERE NOT deleted;
DROP INDEX shipments.shipment_list_provider_id_idx;
CREATE INDEX shipment_list_provider_id_idx ON shipments.shipment_list (account_id, provider_shipment_id) INCLUDE (seq, status, channel_id, reference_number) WHERE NOT deleted;

-- +goose Down
DROP TABLE shipments.shipment_list_blocks;
DROP INDEX shipments.shipment_list_live_idx;
CREATE INDEX shipment_list_deleted_idx ON shipments.shipment_list (account_id, seq) WHERE deleted;
DROP INDEX shipments.shipment_list_status_idx;
CREATE INDEX shipment_list_status_idx ON shipments.shipment_list (account_id, status, seq DESC) WHERE NOT deleted;
DROP INDEX shipments.shipment_list_channel_idx;
CREATE INDEX shipment_list_channel_idx ON shipments.shipment_list (account_id, channel_id, seq DESC) WHERE NOT deleted;
DROP INDEX shipments.shipment_list_reference_idx;
CREATE INDEX shipment_list_reference_idx ON shipments.shipment_list (account_id, reference_number text_pattern_ops) WHERE NOT deleted;
DROP INDEX shipments.shipment_list_provider_id_idx;
CREATE INDEX shipment_list_provider_id_idx ON shipments.shipment_list (account_id, provider_shipment_id) WHERE NOT deleted;
