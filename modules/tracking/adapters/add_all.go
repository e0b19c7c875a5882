package adapters

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/tracking/domain"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// AddAll is Add for a run of parcels, in one insert whatever their count
// (then the events of those it made): a subscriber transaction's run of
// shipments, added a parcel at a time, cost a statement and a commit each.
// Only new rows are written, so it takes no lock of an existing parcel: a
// number tracked already is passed over by the unique key, without waiting
// for its row.
func (r *PostgresRepository) AddAll(ctx context.Context, additions []domain.Addition) ([]*domain.Parcel, error) {
	if len(additions) == 0 {
		return nil, nil
	}
	var rows newParcelColumns
	for _, a := range firstOfEachNumber(additions) {
		if err := rows.add(a.Parcel.Stored()); err != nil {
			return nil, err
		}
	}
	var kept []*domain.Parcel
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		made, err := rows.insert(ctx, tx)
		if err != nil {
			return err
		}
		var events []domain.Event
		for _, a := range additions {
			if !made[a.Parcel.ID()] {
				kept = append(kept, a.Parcel)
				continue
			}
			events = append(events, a.Events...)
		}
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
	if err != nil {
		return nil, err
	}
	return kept, nil
}

// firstOfEachNumber leaves out a parcel whose number an earlier one of the
// run names: the earlier one is made, as one after the other they would be.
func firstOfEachNumber(additions []domain.Addition) []domain.Addition {
	type number struct{ account, channel, trackingNumber string }
	seen := make(map[number]bool, len(additions))
	out := make([]domain.Addition, 0, len(additions))
	for _, a := range additions {
		st := a.Parcel.Stored()
		n := number{st.AccountID, st.ChannelID, st.TrackingNumber}
		if !seen[n] {
			seen[n] = true
			out = append(out, a)
		}
	}
	return out
}

// newParcelColumns are new parcels' rows, a column at a time.
type newParcelColumns struct {
	parcelColumns
	accountID, channelID, trackingNumber, shipmentID []string
}

func (c *newParcelColumns) add(st domain.Stored) error {
	if err := c.parcelColumns.add(st); err != nil {
		return err
	}
	c.accountID, c.channelID = append(c.accountID, st.AccountID), append(c.channelID, st.ChannelID)
	c.trackingNumber, c.shipmentID = append(c.trackingNumber, st.TrackingNumber), append(c.shipmentID, st.ShipmentID)
	return nil
}

// insert inserts the rows whose number no parcel has, and returns the set
// of their ids. The rows go in in the unique key's order, so two runs sharing
// numbers wait for each other's in the same order and never deadlock.
func (c *newParcelColumns) insert(ctx context.Context, tx *sqlx.Tx) (map[string]bool, error) {
	var ids []string
	err := tx.SelectContext(ctx, &ids, `INSERT INTO tracking.parcels
			(id, account_id, channel_id, tracking_number, shipment_id, state, version, next_check_at)
		SELECT id, account_id, channel_id, tracking_number, nullif(shipment_id, ''), state, version, next_check_at
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::integer[], $8::timestamptz[])
			AS p(id, account_id, channel_id, tracking_number, shipment_id, state, version, next_check_at)
		ORDER BY account_id, channel_id, tracking_number
		ON CONFLICT ON CONSTRAINT parcels_number_key DO NOTHING
		RETURNING id`,
		pq.Array(c.id), pq.Array(c.accountID), pq.Array(c.channelID), pq.Array(c.trackingNumber), pq.Array(c.shipmentID),
		pq.Array(c.state), pq.Array(c.version), pq.GenericArray{A: c.nextCheckAt})
	if err != nil {
		return nil, fmt.Errorf("inserting tracking parcels: %w", err)
	}
	made := make(map[string]bool, len(ids))
	for _, id := range ids {
		made[id] = true
	}
	return made, nil
}
