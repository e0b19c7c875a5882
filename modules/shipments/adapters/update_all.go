package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/shipments/domain"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// UpdateAll is Update for a run of changes of many shipments (a consumer
// group's batch of tracking news) in one transaction: three statements
// lock, load and save the shipments, however many there are, and their
// events go to the outbox after. A news used to cost a transaction and a
// durable commit of its own, and at 400 shipments a second the group fell
// minutes behind (issue 32).
func (r *PostgresRepository) UpdateAll(ctx context.Context, changes []domain.Change) error {
	if len(changes) == 0 {
		return nil
	}
	ids := domain.ChangedIDs(changes)
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		// All at once, before any write: each shipment's events keep their
		// order on the stream (postgres.LockForChange), and a request
		// changing one of them waits for the run or the run for it, never
		// both.
		if err := postgres.LockForChanges(ctx, tx, ids); err != nil {
			return err
		}
		found, before, err := lockedShipments(ctx, tx, ids)
		if err != nil {
			return err
		}
		events, named := domain.ApplyInTurn(changes, found)
		var rows shipmentColumns
		for _, id := range ids { // in id order, as they were locked
			if sh, ok := found[id]; ok {
				if err := rows.addChanged(sh, before[id], named[id]); err != nil {
					return err
				}
			}
		}
		if err := rows.save(ctx, tx); err != nil {
			return err
		}
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
}

// lockedShipments loads the shipments of ids (sorted) that still exist,
// locking their rows in that order, with their states as loaded.
func lockedShipments(ctx context.Context, tx *sqlx.Tx, ids []string) (map[string]*domain.Shipment, map[string][]byte, error) {
	var rows []struct {
		ID    string `db:"id"`
		State []byte `db:"state"`
	}
	err := tx.SelectContext(ctx, &rows, `SELECT id, state FROM shipments.shipments WHERE id = ANY($1) ORDER BY id FOR UPDATE`, pq.Array(ids))
	if err != nil {
		return nil, nil, fmt.Errorf("loading shipments: %w", err)
	}
	found, before := make(map[string]*domain.Shipment, len(rows)), make(map[string][]byte, len(rows))
	for _, row := range rows {
		sh, err := restore(row.ID, row.State)
		if err != nil {
			return nil, nil, err
		}
		// Compared with the state after the changes as Update compares:
		// both written by the same encoder.
		if before[row.ID], err = json.Marshal(sh.Stored()); err != nil {
			return nil, nil, err
		}
		found[row.ID] = sh
	}
	return found, before, nil
}

// shipmentColumns are the rows of the shipments a run changed, a column at
// a time.
type shipmentColumns struct {
	id, status, state []string
	version           []int64
	updatedAt         []time.Time
	bookingDue        []bool
}

// addChanged adds sh's row when a change named events of it or changed
// what is stored (before is its state as loaded).
func (c *shipmentColumns) addChanged(sh *domain.Shipment, before []byte, named bool) error {
	if sh.HoldsMoreThanItsRecord() {
		return fmt.Errorf("shipment %s: a label or a tracking request is saved by Update, not UpdateAll", sh.ID())
	}
	st := sh.Stored()
	state, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if !named && bytes.Equal(state, before) {
		return nil
	}
	c.id, c.status, c.state = append(c.id, st.ID), append(c.status, string(st.Status)), append(c.state, string(state))
	c.version, c.updatedAt = append(c.version, int64(st.Version)), append(c.updatedAt, st.UpdatedAt)
	c.bookingDue = append(c.bookingDue, sh.AwaitsCarrier())
	return nil
}

// save writes the rows in one statement, their booking columns as Update
// writes them: a booking still due keeps a worker's lease, one no longer
// due drops it.
func (c *shipmentColumns) save(ctx context.Context, tx *sqlx.Tx) error {
	if len(c.id) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE shipments.shipments s SET status = c.status, state = c.state, version = c.version,
		updated_at = c.updated_at, booking_due = c.booking_due, lease_until = CASE WHEN c.booking_due THEN s.lease_until ELSE NULL END
		FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::integer[], $5::timestamptz[], $6::boolean[])
			AS c(id, status, state, version, updated_at, booking_due)
		WHERE s.id = c.id`,
		pq.Array(c.id), pq.Array(c.status), pq.Array(c.state), pq.Array(c.version),
		pq.GenericArray{A: c.updatedAt}, pq.Array(c.bookingDue))
	if err != nil {
		return fmt.Errorf("updating shipments: %w", err)
	}
	return nil
}
