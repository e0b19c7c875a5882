package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/dispatch/domain"
	shipments "shipd/modules/shipments/contract"
	"shipd/platform/carrier"
	"shipd/platform/postgres"
)

// ShipmentReader answers the module's questions about shipments from its
// copy (ShipmentCopy), which lags the shipments module by as much as the
// copy's consumer group does.
type ShipmentReader struct {
	db *sqlx.DB
}

// NewShipmentReader reads db's dispatch.shipments.
func NewShipmentReader(db *sqlx.DB) *ShipmentReader { return &ShipmentReader{db: db} }

var _ domain.Shipments = (*ShipmentReader)(nil)

type shipmentCopyRecord struct {
	AccountID string `db:"account_id"`
	Record    []byte `db:"record"`
}

// Find returns the shipments of ids the copy holds (a deleted one is not).
func (r *ShipmentReader) Find(ctx context.Context, ids []string) (map[string]domain.Shipment, error) {
	out := map[string]domain.Shipment{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := r.read(ctx, `SELECT account_id, record FROM dispatch.shipments WHERE id = ANY($1) AND NOT deleted`, pq.StringArray(ids))
	for _, sh := range rows {
		out[sh.ID] = sh
	}
	return out, err
}

// Undispatched are the channel's created shipments on no manifest, oldest
// first.
func (r *ShipmentReader) Undispatched(ctx context.Context, accountID, channelID string, limit int) ([]domain.Shipment, error) {
	return r.read(ctx, `SELECT s.account_id, s.record FROM dispatch.shipments s
		WHERE s.shipping_channel_id = $1 AND s.account_id = $2 AND s.status = 'created' AND NOT s.deleted
		AND NOT EXISTS (SELECT FROM dispatch.manifest_shipments m WHERE m.shipment_id = s.id)
		ORDER BY s.created_at, s.id LIMIT $3`, channelID, accountID, limit)
}

// Latest is the channel's newest created shipment.
func (r *ShipmentReader) Latest(ctx context.Context, accountID, channelID string) (domain.Shipment, bool, error) {
	found, err := r.read(ctx, `SELECT account_id, record FROM dispatch.shipments
		WHERE shipping_channel_id = $1 AND account_id = $2 AND status = 'created' AND NOT deleted
		ORDER BY created_at DESC, id DESC LIMIT 1`, channelID, accountID)
	if err != nil || len(found) == 0 {
		return domain.Shipment{}, false, err
	}
	return found[0], true, nil
}

func (r *ShipmentReader) read(ctx context.Context, query string, args ...any) ([]domain.Shipment, error) {
	var rows []shipmentCopyRecord
	if err := sqlx.SelectContext(ctx, postgres.Reader(ctx, r.db), &rows, query, args...); err != nil {
		return nil, fmt.Errorf("reading the shipments' copy: %w", err)
	}
	out := make([]domain.Shipment, 0, len(rows))
	for _, row := range rows {
		var s shipments.ShipmentSnapshot
		if err := json.Unmarshal(row.Record, &s); err != nil {
			return nil, fmt.Errorf("a shipment of the copy: %w", err)
		}
		out = append(out, shipmentOf(row.AccountID, s))
	}
	return out, nil
}

// shipmentOf is what the module keeps of a shipment's snapshot.
func shipmentOf(accountID string, s shipments.ShipmentSnapshot) domain.Shipment {
	sh := domain.Shipment{ID: s.ID, AccountID: accountID, ChannelID: s.ShippingChannelID, Status: s.Status,
		Reference: s.ReferenceNumber, ProductType: s.ProductType, Sender: contactOf(s.SenderContact), Origin: s.OriginAddress,
		Recipient: contactOf(s.RecipientContact), Destination: s.DestinationAddress, CreatedAt: s.CreatedAt}
	if s.ProviderShipmentID != nil {
		sh.ProviderShipmentID = *s.ProviderShipmentID
	}
	if s.CashOnDelivery != nil {
		if cod, err := carrier.MoneyFromFloat(s.CashOnDelivery.Amount, s.CashOnDelivery.Currency); err == nil {
			sh.COD = &cod // the shipments module checked it when the shipment was made
		}
	}
	for _, p := range s.Parcels {
		sh.Parcels = append(sh.Parcels, carrier.Parcel{Type: p.ParcelType, Length: p.LengthDimension, Width: p.WidthDimension,
			Height: p.HeightDimension, DimensionUnit: p.DimensionUnit, Weight: p.WeightAmount, WeightUnit: p.WeightUnit})
		number := ""
		if p.TrackingNumber != nil {
			number = *p.TrackingNumber
		}
		sh.TrackingNumbers = append(sh.TrackingNumbers, number)
	}
	return sh
}

func contactOf(c shipments.Contact) carrier.Contact {
	return carrier.Contact{CompanyName: c.CompanyName, FirstName: c.FirstName, LastName: c.LastName, Email: c.EmailAddress, Phone: c.PhoneNumber}
}
