-- +goose Up
-- Idempotency keys complete in the transaction of the request's own writes
-- (ADR 0007). holder is the presence id of the instance running a claim, so
-- a claim whose instance died is taken over at once; response_sealed marks an
-- answer stored sealed with the secrets box (answers can carry a secret shown
-- once). Answers stored before this migration stay readable in clear until
-- they expire (24 h).
ALTER TABLE platform.idempotency_keys
    ADD COLUMN holder integer,
    ADD COLUMN response_sealed boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE platform.idempotency_keys DROP COLUMN holder, DROP COLUMN response_sealed;
