package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/tracking/domain"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// UpdateAll is Update for many parcels in one transaction, in a fixed number
// of statements whatever their count: a check recorded alone cost a dozen
// round trips and a commit of its own, which capped the checker at a few
// hundred parcels a second.
func (r *PostgresRepository) UpdateAll(ctx context.Context, changes []domain.Change) error {
	if len(changes) == 0 {
		return nil
	}
	ids := make([]string, 0, len(changes))
	for _, c := range changes {
		ids = append(ids, c.ID)
	}
	// Sorted, so that two writers lock their common rows in the same order.
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		// Before any write, so each parcel's events keep their order on the
		// stream (ADR 0030).
		if err := postgres.LockForChanges(ctx, tx, ids); err != nil {
			return err
		}
		parcels, err := loadAll(ctx, tx, ids)
		if err != nil {
			return err
		}
		var events []domain.Event
		for _, c := range changes {
			if p, ok := parcels[c.ID]; ok { // gone since: nothing to record
				events = append(events, c.Apply(p)...)
			}
		}
		if err := saveAll(ctx, tx, ids, parcels); err != nil {
			return err
		}
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
}

// loadAll loads and locks the parcels of ids (sorted) that still exist,
// with their status updates.
func loadAll(ctx context.Context, tx *sqlx.Tx, ids []string) (map[string]*domain.Parcel, error) {
	var rows []struct {
		ID    string `db:"id"`
		State []byte `db:"state"`
	}
	err := tx.SelectContext(ctx, &rows, `SELECT id, state FROM tracking.parcels WHERE id = ANY($1) ORDER BY id FOR UPDATE`, pq.Array(ids))
	if err != nil {
		return nil, fmt.Errorf("loading tracking parcels: %w", err)
	}
	var updates []struct {
		ParcelID string `db:"parcel_id"`
		domain.StatusUpdate
	}
	err = tx.SelectContext(ctx, &updates, `SELECT parcel_id, id, coalesce(status, '') AS status, carrier_code, description,
		location, occurred_at, fingerprint FROM tracking.status_updates WHERE parcel_id = ANY($1) ORDER BY parcel_id, occurred_at, id`,
		pq.Array(ids))
	if err != nil {
		return nil, fmt.Errorf("loading status updates: %w", err)
	}
	byParcel := map[string][]domain.StatusUpdate{}
	for _, u := range updates {
		byParcel[u.ParcelID] = append(byParcel[u.ParcelID], u.StatusUpdate)
	}
	parcels := make(map[string]*domain.Parcel, len(rows))
	for _, row := range rows {
		var st domain.Stored
		if err := json.Unmarshal(row.State, &st); err != nil {
			return nil, fmt.Errorf("tracking parcel %s state: %w", row.ID, err)
		}
		parcels[row.ID] = domain.Restore(st, byParcel[row.ID])
	}
	return parcels, nil
}

// saveAll writes the parcels back, releasing their check leases, and inserts
// their new status updates: one statement each, its rows as arrays.
func saveAll(ctx context.Context, tx *sqlx.Tx, ids []string, parcels map[string]*domain.Parcel) error {
	var rows parcelColumns
	var added updateColumns
	for _, id := range ids {
		p, ok := parcels[id]
		if !ok {
			continue
		}
		if err := rows.add(p.Stored()); err != nil {
			return err
		}
		for _, u := range p.TakeAdded() {
			added.add(id, u)
		}
	}
	if len(rows.id) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE tracking.parcels p SET state = s.state, version = s.version, next_check_at = s.next_check_at,
		lease_until = NULL
		FROM unnest($1::text[], $2::jsonb[], $3::integer[], $4::timestamptz[]) AS s(id, state, version, next_check_at)
		WHERE p.id = s.id`, pq.Array(rows.id), pq.Array(rows.state), pq.Array(rows.version), pq.GenericArray{A: rows.nextCheckAt})
	if err != nil {
		return fmt.Errorf("updating tracking parcels: %w", err)
	}
	if len(added.id) == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO tracking.status_updates
		(id, parcel_id, status, carrier_code, description, location, occurred_at, fingerprint)
		SELECT id, parcel_id, nullif(status, ''), carrier_code, description, location, occurred_at, fingerprint
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
			AS u(id, parcel_id, status, carrier_code, description, location, occurred_at, fingerprint)
		ON CONFLICT ON CONSTRAINT status_updates_fingerprint_key DO NOTHING`,
		pq.Array(added.id), pq.Array(added.parcelID), pq.Array(added.status), pq.Array(added.carrierCode), pq.Array(added.description),
		pq.Array(added.location), pq.GenericArray{A: added.occurredAt}, pq.Array(added.fingerprint))
	if err != nil {
		return fmt.Errorf("recording status updates: %w", err)
	}
	return nil
}

// parcelColumns are the parcels' rows, a column at a time.
type parcelColumns struct {
	id, state   []string
	version     []int64
	nextCheckAt []*time.Time
}

func (c *parcelColumns) add(st domain.Stored) error {
	state, err := json.Marshal(st)
	if err != nil {
		return err
	}
	c.id, c.state = append(c.id, st.ID), append(c.state, string(state))
	c.version, c.nextCheckAt = append(c.version, int64(st.Version)), append(c.nextCheckAt, st.NextCheckAt)
	return nil
}

// updateColumns are the new status updates' rows, a column at a time.
type updateColumns struct {
	id, parcelID, status, carrierCode, description, location, fingerprint []string
	occurredAt                                                            []time.Time
}

func (c *updateColumns) add(parcelID string, u domain.StatusUpdate) {
	c.id, c.parcelID, c.status = append(c.id, u.ID), append(c.parcelID, parcelID), append(c.status, string(u.Status))
	c.carrierCode, c.description, c.location = append(c.carrierCode, u.CarrierCode), append(c.description, u.Description), append(c.location, u.Location)
	c.occurredAt, c.fingerprint = append(c.occurredAt, u.At), append(c.fingerprint, u.Fingerprint)
}
