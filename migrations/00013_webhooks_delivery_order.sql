-- +goose Up
-- First attempts of one resource's events to one subscription go in event
-- order: each delivery names its resource (the channel, shipment or
-- tracking parcel the event is about), and its id, taken when the event is
-- fanned out, is its place in that resource's order. Rows from before this
-- migration have no resource and wait for nothing.
ALTER TABLE webhooks.deliveries ADD COLUMN resource_id text;

-- The deliveries whose first attempt is still to be made or in flight, by
-- subscription and resource: what a claim looks up to see whether an
-- earlier event of the same resource still goes first. Small: a row leaves
-- it with its first attempt.
CREATE INDEX deliveries_unattempted_idx ON webhooks.deliveries (subscription_id, resource_id, id)
    WHERE attempts = 0 AND next_attempt_at IS NOT NULL AND resource_id IS NOT NULL;

-- +goose Down
DROP INDEX webhooks.deliveries_unattempted_idx;
ALTER TABLE webhooks.deliveries DROP COLUMN resource_id;
