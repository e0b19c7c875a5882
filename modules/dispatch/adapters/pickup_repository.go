// Package adapters is the dispatch module's driven side: the PostgreSQL
// repositories of pickups and manifests, the module's copy of shipments and
// the list read models, and shipd's handover document.
package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// PickupRepository keeps pickups in dispatch.pickups, the shipments each
// holds in dispatch.pickup_shipments, and publishes events through the
// outbox in the same transaction.
type PickupRepository struct {
	db     *sqlx.DB
	outbox *messaging.Outbox
}

// NewPickupRepository needs the dispatch module's database and the outbox.
func NewPickupRepository(db *sqlx.DB, outbox *messaging.Outbox) *PickupRepository {
	return &PickupRepository{db: db, outbox: outbox}
}

var _ pickup.Repository = (*PickupRepository)(nil)

type pickupRow struct {
	ID                 string         `db:"id"`
	AccountID          string         `db:"account_id"`
	ChannelID          string         `db:"shipping_channel_id"`
	Provider           string         `db:"provider"`
	Status             string         `db:"status"`
	Date               string         `db:"date"`
	ReadyFrom          string         `db:"ready_from"`
	ReadyUntil         string         `db:"ready_until"`
	Address            string         `db:"address"`
	Contact            string         `db:"contact"`
	ShipmentIDs        pq.StringArray `db:"shipment_ids"`
	ParcelCount        int            `db:"parcel_count"`
	TotalWeightKG      float64        `db:"total_weight_kg"`
	Note               string         `db:"note"`
	ConfirmationNumber string         `db:"confirmation_number"`
	ConfirmedDate      string         `db:"confirmed_date"`
	ConfirmedFrom      string         `db:"confirmed_from"`
	ConfirmedUntil     string         `db:"confirmed_until"`
	CarrierHandle      string         `db:"carrier_handle"`
	OrderHandle        string         `db:"order_handle"`
	Version            int            `db:"version"`
	CreatedAt          time.Time      `db:"created_at"`
	UpdatedAt          time.Time      `db:"updated_at"`
	CancelledAt        *time.Time     `db:"cancelled_at"`
}

const pickupColumns = `id, account_id, shipping_channel_id, provider, status, to_char(date, 'YYYY-MM-DD') AS date, ready_from, ready_until,
	address, contact, shipment_ids, parcel_count, total_weight_kg, note, confirmation_number, confirmed_date, confirmed_from,
	confirmed_until, carrier_handle, order_handle, version, created_at, updated_at, cancelled_at`

// Add stores a pickup being ordered in a transaction of its own (the
// recovery point must outlive the request), refusing a shipment another
// active pickup holds and a second pickup of the channel's date.
func (r *PickupRepository) Add(ctx context.Context, p *pickup.Pickup) error {
	row, err := toPickupRow(p.Stored())
	if err != nil {
		return err
	}
	err = postgres.InOwnTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if err := r.holdShipments(ctx, tx, row.ID, row.ShipmentIDs); err != nil {
			return err
		}
		_, err := tx.NamedExecContext(ctx, `INSERT INTO dispatch.pickups (id, account_id, shipping_channel_id, provider, status, date,
			ready_from, ready_until, address, contact, shipment_ids, parcel_count, total_weight_kg, note, version, created_at, updated_at)
			VALUES (:id, :account_id, :shipping_channel_id, :provider, :status, :date, :ready_from, :ready_until, :address, :contact,
			:shipment_ids, :parcel_count, :total_weight_kg, :note, :version, :created_at, :updated_at)`, row)
		if err != nil {
			return fmt.Errorf("inserting pickup: %w", err)
		}
		return nil
	})
	if postgres.IsUniqueViolation(err, "pickups_channel_date_key") {
		return r.dateTaken(ctx, row.ChannelID, row.Date)
	}
	return err
}

// holdShipments records that pickup holds ids, refusing those another
// active pickup holds, each on its index.
func (r *PickupRepository) holdShipments(ctx context.Context, tx *sqlx.Tx, pickupID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var held []struct {
		ShipmentID string `db:"shipment_id"`
		PickupID   string `db:"pickup_id"`
	}
	if err := tx.SelectContext(ctx, &held, `SELECT shipment_id, pickup_id FROM dispatch.pickup_shipments WHERE shipment_id = ANY($1) FOR UPDATE`,
		pq.StringArray(ids)); err != nil {
		return fmt.Errorf("reading the shipments' pickups: %w", err)
	}
	if len(held) > 0 {
		by := map[string]string{}
		for _, h := range held {
			by[h.ShipmentID] = h.PickupID
		}
		errs := fault.FieldErrors{}
		for i, id := range ids {
			if other, ok := by[id]; ok {
				errs.Add("shipment_ids."+strconv.Itoa(i), "is on pickup "+other+" already (cancel that one first)")
			}
		}
		return errs.Err()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO dispatch.pickup_shipments (shipment_id, pickup_id) SELECT unnest($1::text[]), $2`,
		pq.StringArray(ids), pickupID)
	if postgres.IsUniqueViolation(err, "") {
		return fault.Field("shipment_ids", "names a shipment another pickup took at the same moment; try again")
	}
	return err
}

// dateTaken is the answer to a second pickup of the channel's date.
func (r *PickupRepository) dateTaken(ctx context.Context, channelID, date string) error {
	var other string
	_ = r.db.GetContext(ctx, &other, `SELECT id FROM dispatch.pickups WHERE shipping_channel_id = $1 AND date = $2 AND status <> 'cancelled'`,
		channelID, date) // for the message only: the refusal stands without it
	return fault.Field("date", "the channel has a pickup on "+date+" already ("+other+"); cancel it to order another")
}

// Get loads one pickup.
func (r *PickupRepository) Get(ctx context.Context, id string) (*pickup.Pickup, error) {
	return r.load(ctx, postgres.Reader(ctx, r.db), id, "")
}

// Update changes one pickup under its lock and publishes the events; a
// cancelled pickup lets its shipments go.
func (r *PickupRepository) Update(ctx context.Context, id string, fn func(p *pickup.Pickup) ([]domain.Event, error)) (*pickup.Pickup, error) {
	var out *pickup.Pickup
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		p, err := r.change(ctx, tx, id, fn)
		out = p
		return err
	})
	return out, err
}

// Record is Update in a transaction of its own, with no event.
func (r *PickupRepository) Record(ctx context.Context, id string, fn func(p *pickup.Pickup) error) error {
	return postgres.InOwnTx(ctx, r.db, func(tx *sqlx.Tx) error {
		_, err := r.change(ctx, tx, id, func(p *pickup.Pickup) ([]domain.Event, error) { return nil, fn(p) })
		return err
	})
}

func (r *PickupRepository) change(ctx context.Context, tx *sqlx.Tx, id string, fn func(p *pickup.Pickup) ([]domain.Event, error)) (*pickup.Pickup, error) {
	if err := postgres.LockForChange(ctx, tx, id); err != nil {
		return nil, err
	}
	p, err := r.load(ctx, tx, id, " FOR UPDATE")
	if err != nil {
		return nil, err
	}
	events, err := fn(p)
	if err != nil {
		return nil, err
	}
	row, err := toPickupRow(p.Stored())
	if err != nil {
		return nil, err
	}
	if _, err := tx.NamedExecContext(ctx, `UPDATE dispatch.pickups SET status = :status, confirmation_number = :confirmation_number,
		confirmed_date = :confirmed_date, confirmed_from = :confirmed_from, confirmed_until = :confirmed_until,
		carrier_handle = :carrier_handle, order_handle = :order_handle, version = :version, updated_at = :updated_at,
		cancelled_at = :cancelled_at WHERE id = :id`, row); err != nil {
		return nil, fmt.Errorf("updating pickup: %w", err)
	}
	if p.Status() == pickup.StatusCancelled {
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatch.pickup_shipments WHERE pickup_id = $1`, id); err != nil {
			return nil, fmt.Errorf("letting the pickup's shipments go: %w", err)
		}
	}
	return p, messaging.PublishAll(ctx, r.outbox, tx, events)
}

// Forget removes a pickup being ordered and what it holds, in a
// transaction of its own; a pickup in any other status (one a concurrent
// resolution scheduled, say) keeps its row and its shipments.
func (r *PickupRepository) Forget(ctx context.Context, id string) error {
	return postgres.InOwnTx(ctx, r.db, func(tx *sqlx.Tx) error {
		var gone int
		if err := tx.GetContext(ctx, &gone, `WITH p AS (DELETE FROM dispatch.pickups WHERE id = $1 AND status = 'ordering' RETURNING id)
			SELECT count(*) FROM p`, id); err != nil {
			return fmt.Errorf("forgetting the pickup: %w", err)
		}
		if gone == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatch.pickup_shipments WHERE pickup_id = $1`, id); err != nil {
			return fmt.Errorf("forgetting the pickup's shipments: %w", err)
		}
		return nil
	})
}

// Stale are the pickups being ordered since before.
func (r *PickupRepository) Stale(ctx context.Context, before time.Time, limit int) ([]string, error) {
	var ids []string
	err := r.db.SelectContext(ctx, &ids, `SELECT id FROM dispatch.pickups WHERE status = 'ordering' AND updated_at < $1
		ORDER BY updated_at LIMIT $2`, before, limit)
	return ids, err
}

func (r *PickupRepository) load(ctx context.Context, q sqlx.QueryerContext, id, lock string) (*pickup.Pickup, error) {
	var row pickupRow
	err := sqlx.GetContext(ctx, q, &row, `SELECT `+pickupColumns+` FROM dispatch.pickups WHERE id = $1`+lock, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.NotFound("Pickup")
	}
	if err != nil {
		return nil, fmt.Errorf("loading pickup: %w", err)
	}
	return fromPickupRow(row)
}

func toPickupRow(s pickup.Stored) (pickupRow, error) {
	address, err := json.Marshal(s.Address)
	if err != nil {
		return pickupRow{}, err
	}
	contact, err := json.Marshal(contract.ContactOf(s.Contact))
	if err != nil {
		return pickupRow{}, err
	}
	ids := s.ShipmentIDs
	if ids == nil {
		ids = []string{}
	}
	return pickupRow{ID: s.ID, AccountID: s.AccountID, ChannelID: s.ChannelID, Provider: s.Provider, Status: string(s.Status),
		Date: s.Date, ReadyFrom: s.ReadyFrom, ReadyUntil: s.ReadyUntil, Address: string(address), Contact: string(contact),
		ShipmentIDs: ids, ParcelCount: s.ParcelCount, TotalWeightKG: s.TotalWeightKG, Note: s.Note,
		ConfirmationNumber: s.ConfirmationNumber, ConfirmedDate: s.ConfirmedDate, ConfirmedFrom: s.ConfirmedFrom,
		ConfirmedUntil: s.ConfirmedUntil, CarrierHandle: s.CarrierHandle, OrderHandle: s.OrderHandle, Version: s.Version,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, CancelledAt: s.CancelledAt}, nil
}

func fromPickupRow(row pickupRow) (*pickup.Pickup, error) {
	var address carrier.Address
	var contact contract.Contact
	if err := json.Unmarshal([]byte(row.Address), &address); err != nil {
		return nil, fmt.Errorf("pickup %s address: %w", row.ID, err)
	}
	if err := json.Unmarshal([]byte(row.Contact), &contact); err != nil {
		return nil, fmt.Errorf("pickup %s contact: %w", row.ID, err)
	}
	var ids []string
	if len(row.ShipmentIDs) > 0 {
		ids = row.ShipmentIDs
	}
	return pickup.Restore(pickup.Stored{ID: row.ID, AccountID: row.AccountID, ChannelID: row.ChannelID, Provider: row.Provider,
		Status: pickup.Status(row.Status), Date: row.Date, ReadyFrom: row.ReadyFrom, ReadyUntil: row.ReadyUntil, Address: address,
		Contact: contact.Carrier(), ShipmentIDs: ids, ParcelCount: row.ParcelCount, TotalWeightKG: row.TotalWeightKG,
		Note: row.Note, ConfirmationNumber: row.ConfirmationNumber, ConfirmedDate: row.ConfirmedDate,
		ConfirmedFrom: row.ConfirmedFrom, ConfirmedUntil: row.ConfirmedUntil, CarrierHandle: row.CarrierHandle,
		OrderHandle: row.OrderHandle, Version: row.Version, CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
		CancelledAt: utc(row.CancelledAt)}), nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
