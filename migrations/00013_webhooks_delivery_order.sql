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

-- A claim changes only lease_until, in no index: with room left on the
-- page the new version goes beside the old (a HOT update), without new
-- index entries and with a WAL record of the changed bytes only.
ALTER TABLE webhooks.deliveries SET (fillfactor = 50);

-- An attempt's log keeps no copy of the body: it is its delivery's, the
-- same bytes on every attempt, read with the log (NULL here). Logs from
-- before this migration keep theirs. So a delivery outlives its logs: it is
-- purged once finished and its last attempt (last_attempt_at; its creation
-- when it had none) is older than the retention, when its logs are too.
ALTER TABLE webhooks.delivery_log ALTER COLUMN request_body DROP NOT NULL;
ALTER TABLE webhooks.deliveries ADD COLUMN last_attempt_at timestamptz;
DROP INDEX webhooks.deliveries_created_idx;
CREATE INDEX deliveries_finished_idx ON webhooks.deliveries ((coalesce(last_attempt_at, created_at))) WHERE next_attempt_at IS NULL;

-- +goose Down
DROP INDEX webhooks.deliveries_finished_idx;
CREATE INDEX deliveries_created_idx ON webhooks.deliveries (created_at);
UPDATE webhooks.delivery_log l SET request_body = d.body FROM webhooks.deliveries d WHERE l.request_body IS NULL AND d.id = l.delivery_id;
DELETE FROM webhooks.delivery_log WHERE request_body IS NULL;
ALTER TABLE webhooks.delivery_log ALTER COLUMN request_body SET NOT NULL;
ALTER TABLE webhooks.deliveries DROP COLUMN last_attempt_at;
ALTER TABLE webhooks.deliveries RESET (fillfactor);
DROP INDEX webhooks.deliveries_unattempted_idx;
ALTER TABLE webhooks.deliveries DROP COLUMN resource_id;
