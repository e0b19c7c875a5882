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

-- The body is the event's, the same for every subscription's delivery of
-- it: kept once per event, out of the delivery row, which the claim and the
-- record rewrite and which is now small. The unique key leads with the
-- event so the purge finds an event's deliveries.
CREATE TABLE webhooks.event_bodies (
    event_id    text PRIMARY KEY,
    body        text NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX event_bodies_created_idx ON webhooks.event_bodies (created_at);
INSERT INTO webhooks.event_bodies (event_id, body, created_at)
    SELECT DISTINCT ON (event_id) event_id, body, created_at FROM webhooks.deliveries ORDER BY event_id, created_at;
ALTER TABLE webhooks.deliveries DROP COLUMN body;
ALTER TABLE webhooks.deliveries DROP CONSTRAINT deliveries_subscription_event_key;
ALTER TABLE webhooks.deliveries ADD CONSTRAINT deliveries_event_subscription_key UNIQUE (event_id, subscription_id);
ALTER TABLE webhooks.deliveries ADD CONSTRAINT deliveries_event_body_fkey
    FOREIGN KEY (event_id) REFERENCES webhooks.event_bodies (event_id);

-- +goose Down
ALTER TABLE webhooks.deliveries DROP CONSTRAINT deliveries_event_body_fkey;
ALTER TABLE webhooks.deliveries DROP CONSTRAINT deliveries_event_subscription_key;
ALTER TABLE webhooks.deliveries ADD CONSTRAINT deliveries_subscription_event_key UNIQUE (subscription_id, event_id);
ALTER TABLE webhooks.deliveries ADD COLUMN body text;
UPDATE webhooks.deliveries d SET body = b.body FROM webhooks.event_bodies b WHERE b.event_id = d.event_id;
ALTER TABLE webhooks.deliveries ALTER COLUMN body SET NOT NULL;
DROP INDEX webhooks.deliveries_finished_idx;
CREATE INDEX deliveries_created_idx ON webhooks.deliveries (created_at);
UPDATE webhooks.delivery_log l SET request_body = d.body FROM webhooks.deliveries d WHERE l.request_body IS NULL AND d.id = l.delivery_id;
DELETE FROM webhooks.delivery_log WHERE request_body IS NULL;
ALTER TABLE webhooks.delivery_log ALTER COLUMN request_body SET NOT NULL;
DROP TABLE webhooks.event_bodies;
ALTER TABLE webhooks.deliveries DROP COLUMN last_attempt_at;
ALTER TABLE webhooks.deliveries RESET (fillfactor);
DROP INDEX webhooks.deliveries_unattempted_idx;
ALTER TABLE webhooks.deliveries DROP COLUMN resource_id;
