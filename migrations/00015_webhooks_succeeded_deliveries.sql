-- +goose Up
-- A delivery that succeeds is deleted by the record that logs its success
-- (ADR 0020): its log says everything about it, and its event's body is
-- then kept by the event's logs, which the purge finds by event. Deliveries
-- that succeeded before this migration stay until the purge, as before.
CREATE INDEX delivery_log_event_idx ON webhooks.delivery_log (event_id);

-- +goose Down
DROP INDEX webhooks.delivery_log_event_idx;
