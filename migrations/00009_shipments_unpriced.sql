-- +goose Up
-- A carrier that names no price (DHL Parcel DE, GLS, PPL, InPost without an
-- offer) was recorded as total price 0 with currency "", which read as a
-- free shipment. The price is now kept missing (null); this rewrites what
-- was stored before. A price without a currency was never a carrier's: the
-- code reads such a price as none too, so rows written by an older instance
-- during a rolling upgrade read right as well.
UPDATE shipments.shipments
SET state = jsonb_set(state, '{total_price_minor}', 'null'::jsonb)
WHERE state->>'currency' = '' AND jsonb_typeof(state->'total_price_minor') = 'number';

-- The list rows keep the API's key order (json, not jsonb), so the two keys
-- are rewritten in the text as encoding/json wrote them.
UPDATE shipments.shipment_list
SET record = regexp_replace(record::text, '"total_price":[^,]*,"currency":""', '"total_price":null,"currency":null')::json
WHERE record->>'currency' = '';

-- +goose Down
-- Nothing to undo: the zeros were never the carriers' prices.
