-- +goose Up
-- Kept for handlers whose writes were not naturally idempotent
-- (messaging.Once); no handler ever needed it (ADR 0019), and it is gone.
DROP TABLE platform.processed_messages;

-- +goose Down
CREATE TABLE platform.processed_messages (
    handler      text NOT NULL,
    message_uuid text NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (handler, message_uuid)
);
