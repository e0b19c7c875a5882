-- +goose Up
-- A message that fails every try of one consumer group is set aside here,
-- with its error, and acknowledged, so its stream goes on (ADR 0006).
-- `shipd events list` shows them; `shipd events retry` puts one back on its
-- stream for that group alone.
CREATE TABLE platform.dead_letters (
    id             bigserial   PRIMARY KEY,
    consumer_group text        NOT NULL,
    stream         text        NOT NULL,
    message_uuid   text        NOT NULL,
    name           text        NOT NULL,
    payload        bytea       NOT NULL,
    metadata       jsonb       NOT NULL,
    error          text        NOT NULL,
    failed_at      timestamptz NOT NULL DEFAULT now(),
    retried_at     timestamptz
);
-- What waits for an operator, per group (the /metrics gauge counts these).
CREATE INDEX dead_letters_waiting ON platform.dead_letters (consumer_group) WHERE retried_at IS NULL;

-- +goose Down
DROP TABLE platform.dead_letters;
