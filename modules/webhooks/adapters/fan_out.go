package adapters

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/webhooks/app/command"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// FanOut stores a run of events in one statement: the body of each event
// some active subscription takes, once, and a delivery per (event, taking
// subscription). A redelivered event adds nothing: deliveries are made
// only for bodies stored now (a delivery that succeeded is deleted, so the
// (event, subscription) key alone would let it be made again). The id the
// sequence gives each delivery is its place in its resource's order, so
// the rows go in in the run's order: events of one resource fanned out
// later, in the run or in a later one, get higher ids.
//
// Under a consumer group's transaction (postgres.Within) it writes there,
// under a savepoint, and the delivery workers' signal goes out with that
// transaction's commit.
func (s *DeliveryStore) FanOut(ctx context.Context, run []command.OutboundEvent, now time.Time) (int64, error) {
	run = firstOfEach(run)
	if len(run) == 0 {
		return 0, nil
	}
	var cols fanOutColumns
	for _, e := range run {
		cols.add(e)
	}
	var made int64
	err := postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, fanOutStatement, append(cols.args(), now)...)
		if err != nil {
			return err
		}
		if made, err = res.RowsAffected(); err != nil || made == 0 {
			return err
		}
		// Sent at the commit, once for the run: the workers claim what it made.
		return messaging.Notify(ctx, tx, command.DeliveriesDue)
	})
	if err != nil {
		return 0, fmt.Errorf("fanning out %d events from %s: %w", len(run), run[0].ID, err)
	}
	return made, nil
}

// fanOutStatement stores the run ($1-$5, one element per event, in stream
// order) at $6. ORDER BY is what gives the deliveries rising ids in that
// order: the sequence is drawn as the sorted rows are inserted.
const fanOutStatement = `
	WITH run AS (
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
			AS e(event_id, event_type, account_id, resource_id, body, place)),
	takers AS (
		SELECT e.place, e.event_id, e.event_type, e.resource_id, s.id AS subscription_id, s.account_id
		FROM run e JOIN webhooks.subscriptions s
			ON s.account_id = e.account_id AND s.active AND s.deleted_at IS NULL AND e.event_type = ANY (s.events)),
	bodies AS (
		INSERT INTO webhooks.event_bodies (event_id, body, created_at)
		SELECT e.event_id, e.body, $6 FROM run e WHERE e.place IN (SELECT place FROM takers)
		ON CONFLICT (event_id) DO NOTHING
		RETURNING event_id)
	INSERT INTO webhooks.deliveries (subscription_id, account_id, event_id, event_type, resource_id, next_attempt_at, created_at)
	SELECT t.subscription_id, t.account_id, t.event_id, t.event_type, NULLIF(t.resource_id, ''), $6, $6
	FROM takers t WHERE t.event_id IN (SELECT event_id FROM bodies)
	ORDER BY t.place, t.subscription_id
	ON CONFLICT (event_id, subscription_id) DO NOTHING`

// firstOfEach drops the events of the run seen earlier in it (the same
// message twice): the first keeps its place.
func firstOfEach(run []command.OutboundEvent) []command.OutboundEvent {
	seen := make(map[string]bool, len(run))
	out := run[:0:0]
	for _, e := range run {
		if !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e)
		}
	}
	return out
}

// fanOutColumns are a run's events, a slice per column.
type fanOutColumns struct {
	id, eventType, accountID, resourceID, body []string
}

func (c *fanOutColumns) add(e command.OutboundEvent) {
	c.id = append(c.id, e.ID)
	c.eventType = append(c.eventType, e.Type)
	c.accountID = append(c.accountID, e.AccountID)
	c.resourceID = append(c.resourceID, e.ResourceID)
	c.body = append(c.body, string(e.Body))
}

func (c *fanOutColumns) args() []any {
	return []any{pq.Array(c.id), pq.Array(c.eventType), pq.Array(c.accountID), pq.Array(c.resourceID), pq.Array(c.body)}
}
