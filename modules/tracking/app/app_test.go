package app_test

import (
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/tracking/adapters/memory"
	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/usecase/usecasetest"
)

// The application as New wires it, on the in-memory adapters and the
// sandbox carrier (on the same manual clock), follows a parcel's journey as
// the HTTP port, the checker worker and the channels' commands drive it.
func TestApplicationFollowsASandboxJourney(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	repo := memory.NewRepository()
	clk := clock.NewManual(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
	ch := channels.ChannelAccess{ID: "ch_1", AccountID: "acc_1", Name: "Sandbox", Provider: sandbox.Code, Status: "active",
		Settings: map[string]any{"clientId": "demo", "clientSecret": "demo"}}
	a := app.New(repo, memory.NewParcelList(repo), memory.NewCheckQueue(repo, clk), channelstest.New(ch),
		carrier.NewRegistry(sandbox.NewWithConfig(sandbox.Config{Clock: clk})), clk,
		config.Config{CarrierTimeout: 5 * time.Second}, usecasetest.Observer())

	// Picked up at 2 h, at the hub at 8 h, out at 20 h, delivered at 26 h.
	number := sandbox.S10("SB", "00000001", "CZ")
	hours, checks := 6, 20
	err := a.Commands.CreateTrackingParcel.Handle(ctx, command.CreateTrackingParcel{AccountID: "acc_1", ParcelID: "tp_1",
		Parcel: domain.Request{TrackingNumber: number, ChannelID: "ch_1", CheckDelayHours: &hours, MaxChecks: &checks}})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(9 * time.Hour)
	due, err := a.Queries.ClaimDueChecks.Handle(ctx, query.ClaimDueChecks{Limit: 10, Lease: time.Minute})
	if err != nil || len(due) != 1 {
		t.Fatalf("claimed %d (%v)", len(due), err)
	}
	if err := a.Commands.CheckDueParcels.Handle(ctx, due[0]); err != nil {
		t.Fatal(err)
	}
	d, err := a.Queries.GetTrackingParcel.Handle(ctx, query.GetTrackingParcel{AccountID: "acc_1", ID: "tp_1"})
	if err != nil || d.Status != "in_transit" || len(d.StatusUpdates) == 0 {
		t.Fatalf("after the hub: %s with %d updates (%v)", d.Status, len(d.StatusUpdates), err)
	}
	clk.Advance(18 * time.Hour)
	if err := a.Commands.CheckTrackingParcel.Handle(ctx, command.CheckTrackingParcel{AccountID: "acc_1", ID: "tp_1"}); err != nil {
		t.Fatal(err)
	}
	d, err = a.Queries.GetTrackingParcel.Handle(ctx, query.GetTrackingParcel{AccountID: "acc_1", ID: "tp_1"})
	if err != nil || d.Status != "delivered" || d.NextCheckAt != nil {
		t.Fatalf("after delivery: %s, next check %v (%v)", d.Status, d.NextCheckAt, err)
	}

	// A shipment's parcels are tracked too, until their channel is deleted.
	err = a.Commands.TrackShipmentParcels.Handle(ctx, command.TrackShipmentParcels{Shipments: []command.ShipmentParcels{{AccountID: "acc_1",
		ShipmentID: "sh_1", ChannelID: "ch_1", Provider: sandbox.Code, TrackingNumbers: []string{sandbox.S10("SB", "00000002", "CZ")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Commands.StopTrackingChannel.Handle(ctx, command.StopTrackingChannel{AccountID: "acc_1", ChannelID: "ch_1"}); err != nil {
		t.Fatal(err)
	}
	page, err := a.Queries.ListTrackingParcels.Handle(ctx, query.ListTrackingParcels{AccountID: "acc_1", Limit: 10})
	if err != nil || page.Total != 2 {
		t.Fatalf("listed %d (%v)", page.Total, err)
	}
	if n, err := memory.NewCheckQueue(repo, clk).Due(ctx); err != nil || n != 0 {
		t.Errorf("%d parcels still due (%v) after the channel was deleted", n, err)
	}
	err = a.Commands.UpdateTrackingParcel.Handle(ctx, command.UpdateTrackingParcel{AccountID: "acc_1", ID: "tp_1", ExternalData: map[string]any{"k": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Commands.DeleteTrackingParcel.Handle(ctx, command.DeleteTrackingParcel{AccountID: "acc_1", ID: "tp_1"}); err != nil {
		t.Fatal(err)
	}
}
