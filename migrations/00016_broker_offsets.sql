-- +goose Up
-- Where each consumer group stands in its stream on the event broker
-- (NATS JetStream, ADR 0032): the stream sequence of the last message it
-- applied, stored in the transaction that applied it. A redelivered message
-- at or before it is passed over; one after a gap waits for the messages
-- another instance holds.
CREATE TABLE platform.broker_offsets (
    consumer_group  text        NOT NULL,
    stream          text        NOT NULL,
    stream_sequence bigint      NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, stream)
);

-- +goose Down
DROP TABLE platform.broker_offsets;
