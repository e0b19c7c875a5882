package adapters_test

import (
	"encoding/json"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/jmoiron/sqlx"

	"shipd/modules/dispatch/adapters"
	"shipd/modules/dispatch/adapters/repositorytest"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	shipments "shipd/modules/shipments/contract"
	"shipd/platform/carrier"
	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
	"shipd/platform/postgres"
	"shipd/platform/projection"
)

// The PostgreSQL adapters keep the contract the app-layer tests' fakes
// keep (repositorytest): the repositories and the readers, the copy of
// shipments fed by its own projection and the lists by theirs, as their
// consumer groups would feed them.
func TestPostgresRepositories(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(t *testing.T) repositorytest.Subject {
		db := outboxtest.Open(t, contract.Stream)
		outbox := messaging.NewOutbox(watermill.NopLogger{})
		shipmentCopy := []projection.Projection{adapters.NewShipmentCopy(db).Definition()}
		lists := adapters.NewListProjections(db).Definitions()
		versions := map[string]int{}
		var read messaging.Cursor
		return repositorytest.Subject{
			Pickups:   adapters.NewPickupRepository(db, outbox),
			Manifests: adapters.NewManifestRepository(db, outbox),
			Shipments: adapters.NewShipmentReader(db),
			Lists:     adapters.NewListReader(db),
			Copy: func(t *testing.T, sh domain.Shipment, deleted bool) {
				versions[sh.ID]++
				apply(t, db, shipmentCopy, shipmentMessage(t, sh, versions[sh.ID], deleted))
			},
			CatchUp: func(t *testing.T) {
				for {
					msgs, next, err := messaging.ReadStored(t.Context(), db, []string{contract.Stream}, messaging.Window{}, read, 100)
					if err != nil {
						t.Fatal(err)
					}
					apply(t, db, lists, msgs...)
					read = next
					if len(msgs) < 100 {
						return
					}
				}
			},
			Written: outboxtest.FromStreams(db, contract.Stream),
		}
	})
}

// apply writes msgs into the projections' live tables, one batch each.
func apply(t *testing.T, db *sqlx.DB, projections []projection.Projection, msgs ...messaging.StoredMessage) {
	t.Helper()
	ctx := t.Context()
	if err := postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
		for _, p := range projections {
			if err := p.Apply(ctx, tx, projection.Live, msgs...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// shipmentMessage is the shipments stream's event of sh at version:
// shipment.created, or shipment.deleted.
func shipmentMessage(t *testing.T, sh domain.Shipment, version int, deleted bool) messaging.StoredMessage {
	t.Helper()
	snap := shipments.ShipmentSnapshot{ID: sh.ID, ReferenceNumber: sh.Reference, ShippingChannelID: sh.ChannelID, Status: sh.Status,
		Provider: "fake", ProductType: sh.ProductType, SenderContact: contactOf(sh.Sender), RecipientContact: contactOf(sh.Recipient),
		OriginAddress: sh.Origin, DestinationAddress: sh.Destination, CreatedAt: sh.CreatedAt, UpdatedAt: sh.CreatedAt}
	if sh.ProviderShipmentID != "" {
		snap.ProviderShipmentID = &sh.ProviderShipmentID
	}
	for i, p := range sh.Parcels {
		parcel := shipments.Parcel{ParcelType: p.Type, LengthDimension: p.Length, WidthDimension: p.Width, HeightDimension: p.Height,
			DimensionUnit: p.DimensionUnit, WeightAmount: p.Weight, WeightUnit: p.WeightUnit}
		if i < len(sh.TrackingNumbers) && sh.TrackingNumbers[i] != "" {
			parcel.TrackingNumber = &sh.TrackingNumbers[i]
		}
		snap.Parcels = append(snap.Parcels, parcel)
	}
	if sh.COD != nil {
		snap.CashOnDelivery = &shipments.CashOnDelivery{Amount: sh.COD.Float(), Currency: sh.COD.Currency}
	}
	e := shipments.ShipmentEvent{AccountID: sh.AccountID, Version: version, OccurredAt: sh.CreatedAt, Shipment: snap}
	var event messaging.Event = shipments.ShipmentCreated{ShipmentEvent: e}
	if deleted {
		event = shipments.ShipmentDeleted{ShipmentEvent: e}
	}
	payload, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	return messaging.StoredMessage{Topic: shipments.Stream, Name: event.EventType(), UUID: ids.New(ids.Event), Payload: payload}
}

func contactOf(c carrier.Contact) shipments.Contact {
	return shipments.Contact{CompanyName: c.CompanyName, FirstName: c.FirstName, LastName: c.LastName, EmailAddress: c.Email,
		PhoneNumber: c.Phone}
}
