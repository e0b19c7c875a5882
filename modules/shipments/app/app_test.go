package app_test

import (
	"bytes"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/adapters/labels"
	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/usecase/usecasetest"
)

// merger is the composition root's label merger: the real one.
type merger struct{}

func (merger) Merge(format string, parts [][]byte) ([]byte, error) {
	return labels.Merge(format, parts)
}
func (merger) MIMEType(format string) string { return labels.MIMEType(format) }

// The application as New wires it, on the in-memory adapters and the
// sandbox carrier, takes a shipment from its request to a real merged label
// and its cancellation, as the HTTP port and the booking worker drive it.
func TestApplicationBooksWithTheSandboxCarrier(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	repo := memory.NewRepository()
	ch := channels.ChannelAccess{ID: "ch_1", AccountID: "acc_1", Name: "Sandbox", Provider: sandbox.Code, Status: "active",
		Settings: map[string]any{"clientId": "demo", "clientSecret": "demo", "productType": "EXPRESS"}}
	clk := clock.NewManual(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
	a := app.New(repo, memory.NewShipmentList(repo), channelstest.New(ch), carrier.NewRegistry(sandbox.New()), merger{}, clk,
		config.Config{CarrierTimeout: 5 * time.Second}, usecasetest.Observer())

	req := domain.Request{ChannelID: "ch_1", ReferenceNumber: "ORDER-1", ShippingDate: "2026-11-03",
		Sender:      &domain.Contact{CompanyName: "Sender s.r.o.", EmailAddress: "s@example.com", PhoneNumber: "+420123456789"},
		Recipient:   &domain.Contact{FirstName: "Jana", LastName: "Nová", EmailAddress: "j@example.com", PhoneNumber: "+420987654321"},
		Origin:      &domain.Address{StreetName: "Main", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Destination: &domain.Address{StreetName: "Side", HouseNumber: "2", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Parcels: []domain.Parcel{
			{ParcelType: "package", LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, DimensionUnit: "CM", WeightAmount: 1, WeightUnit: "KG"},
			{ParcelType: "package", LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, DimensionUnit: "CM", WeightAmount: 2, WeightUnit: "KG"},
		}}
	if err := a.Commands.CreateShipment.Handle(ctx, command.CreateShipment{AccountID: "acc_1", ShipmentID: "sh_1", Shipment: req}); err != nil {
		t.Fatal(err)
	}
	if err := a.Commands.BookShipment.Handle(ctx, command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	rec, err := a.Queries.GetShipment.Handle(ctx, query.GetShipment{AccountID: "acc_1", ID: "sh_1"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "created" || rec.ProductType != "EXPRESS" || rec.TotalPrice == nil || *rec.TotalPrice <= 0 ||
		rec.Parcels[0].TrackingNumber == nil || rec.Parcels[1].TrackingNumber == nil {
		t.Fatalf("booked %+v", rec)
	}
	label, err := a.Queries.GetLabel.Handle(ctx, query.GetLabel{AccountID: "acc_1", ID: "sh_1"})
	if err != nil || label.Label.MIMEType != "application/pdf" || !bytes.HasPrefix(label.Label.Data, []byte("%PDF-")) {
		t.Fatalf("label %q… (%s), %v", label.Label.Data[:min(8, len(label.Label.Data))], label.Label.MIMEType, err)
	}
	page, err := a.Queries.ListShipments.Handle(ctx, query.ListShipments{AccountID: "acc_1", Limit: 10})
	if err != nil || page.Total != 1 {
		t.Fatalf("list %d (%v)", page.Total, err)
	}
	if err := a.Commands.CancelShipment.Handle(ctx, command.CancelShipment{AccountID: "acc_1", ID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	rec, err = a.Queries.GetShipment.Handle(ctx, query.GetShipment{AccountID: "acc_1", ID: "sh_1"})
	if err != nil || rec.Status != string(domain.StatusCancelled) {
		t.Fatalf("after cancelling: %s (%v)", rec.Status, err)
	}
}
