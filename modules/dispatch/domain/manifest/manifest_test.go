package manifest_test

import (
	"maps"
	"reflect"
	"testing"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
	"shipd/platform/ids"
)

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

var (
	origin  = carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"}
	sender  = carrier.Contact{CompanyName: "Acme s.r.o.", Phone: "+420111222333"}
	byShipd = carrier.DispatchInfo{Manifest: carrier.ManifestByShipd}
)

// shipment is a created shipment of acc_1's ch_1 of parcels weighing kg
// each, sent from origin by sender.
func shipment(kg ...float64) domain.Shipment {
	sh := domain.Shipment{ID: ids.New(ids.Shipment), AccountID: "acc_1", ChannelID: "ch_1", Status: "created",
		ProviderShipmentID: "P-1", Sender: sender, Origin: origin}
	for _, w := range kg {
		sh.Parcels = append(sh.Parcels, carrier.Parcel{Type: "package", Weight: w, WeightUnit: "KG"})
		sh.TrackingNumbers = append(sh.TrackingNumbers, "TN")
	}
	return sh
}

// context is what New is told of the named shipments: each of them known.
func context(shipments ...domain.Shipment) manifest.Context {
	return manifest.Context{ID: "mnf_1", AccountID: "acc_1", Provider: "fake", Dispatch: byShipd, Shipments: shipments, Named: true,
		Unknown: map[string]bool{}, Now: t0}
}

func named(shipments ...domain.Shipment) manifest.Request {
	r := manifest.Request{ChannelID: "ch_1"}
	for _, sh := range shipments {
		r.ShipmentIDs = append(r.ShipmentIDs, sh.ID)
	}
	return r
}

// Every rule of a request's own: Check says it before any channel is
// looked at, and New the same.
func TestRequestRules(t *testing.T) {
	a, b := shipment(1), shipment(1)
	many := make([]string, manifest.MaxShipments+1)
	for i := range many {
		many[i] = ids.New(ids.Shipment)
	}
	for _, tc := range []struct {
		name string
		r    manifest.Request
		want map[string][]string
	}{
		{"named", named(a, b), nil},
		{"every undispatched one", manifest.Request{ChannelID: "ch_1"}, nil},
		{"no channel", manifest.Request{ShipmentIDs: []string{a.ID}}, one("shipping_channel_id", "is required")},
		{"no shipment ids", manifest.Request{ChannelID: "ch_1", ShipmentIDs: []string{}},
			one("shipment_ids", "must have at least 1 item, or be left out for every created shipment of the channel not yet on a manifest")},
		{"too many", manifest.Request{ChannelID: "ch_1", ShipmentIDs: many}, one("shipment_ids", "must have at most 10000 items")},
		{"a shipment named twice", manifest.Request{ChannelID: "ch_1", ShipmentIDs: []string{a.ID, b.ID, b.ID}},
			one("shipment_ids.2", "repeats shipment_ids.1")},
		{"not a shipment's id", manifest.Request{ChannelID: "ch_1", ShipmentIDs: []string{ids.New(ids.Pickup), a.ID, "sh_x"}},
			map[string][]string{"shipment_ids.0": {"must be a shipment id (sh_...)"}, "shipment_ids.2": {"must be a shipment id (sh_...)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fields(t, tc.r.Check()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Check = %v, want %v", got, tc.want)
			}
			c := context(a, b)
			c.Named = tc.r.ShipmentIDs != nil
			want := maps.Clone(tc.want)
			if tc.r.ChannelID == "" {
				// New also judges each shipment against the channel named.
				want["shipment_ids.0"] = []string{"is a shipment of another shipping channel (ch_1)"}
			}
			m, err := manifest.New(tc.r, c)
			if got := fields(t, err); !reflect.DeepEqual(got, want) || (err == nil) != (m != nil) {
				t.Errorf("New = %v, want %v", got, want)
			}
		})
	}
}

// Each named shipment must be one the module knows, of the account's
// channel, created at the carrier; a request for the channel's
// undispatched shipments when it has none is refused on shipment_ids.
func TestNewRefusesShipmentsItCannotHandOver(t *testing.T) {
	ok, theirs, elsewhere, cancelled, delivered := shipment(1), shipment(1), shipment(1), shipment(1), shipment(1)
	theirs.AccountID, elsewhere.ChannelID, cancelled.Status, delivered.Status = "acc_2", "ch_2", "cancelled", "delivered"
	unknown := ids.New(ids.Shipment)
	r := named(ok, theirs, elsewhere, cancelled, delivered)
	r.ShipmentIDs = append(r.ShipmentIDs[:1], append([]string{unknown}, r.ShipmentIDs[1:]...)...)
	c := context(ok, theirs, elsewhere, cancelled, delivered)
	c.Unknown[unknown] = true
	m, err := manifest.New(r, c)
	if got, want := fields(t, err), map[string][]string{
		"shipment_ids.1": {"does not name a shipment this module knows (a shipment created at its carrier moments ago may not be known yet: try again)"},
		"shipment_ids.2": {"is a shipment of another account"},
		"shipment_ids.3": {"is a shipment of another shipping channel (ch_2)"},
		"shipment_ids.4": {"is cancelled"},
		"shipment_ids.5": {"has been handed over already (its status is delivered)"},
	}; !reflect.DeepEqual(got, want) || m != nil {
		t.Errorf("New = %v, want %v", got, want)
	}
	c = context()
	c.Named = false
	_, err = manifest.New(manifest.Request{ChannelID: "ch_1"}, c)
	if got := fields(t, err); !reflect.DeepEqual(got, one("shipment_ids", "the channel has no created shipment that is not on a manifest")) {
		t.Errorf("nothing to hand over: %v", got)
	}
}

// A new manifest is being created, dated the UTC day it is made, from its
// first shipment's sender and origin, counting its shipments' parcels and
// weight (to the gram); its document is the carrier's where the carrier
// makes one, shipd's otherwise.
func TestNewManifestIsBeingCreated(t *testing.T) {
	first, second := shipment(1.2344, 0.0003), shipment(2)
	second.Sender, second.Origin = carrier.Contact{CompanyName: "Other"}, carrier.Address{CityName: "Brno"}
	c := context(first, second)
	c.Now = time.Date(2026, 12, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)) // 23:30 UTC on the 30th
	m, err := manifest.New(named(first, second), c)
	if err != nil {
		t.Fatal(err)
	}
	want := manifest.Stored{ID: "mnf_1", AccountID: "acc_1", ChannelID: "ch_1", Provider: "fake", Status: manifest.StatusCreating,
		Date: "2026-11-30", ShipmentIDs: []string{first.ID, second.ID}, ParcelCount: 3, TotalWeightKG: 3.235, Sender: sender,
		Origin: origin, Document: manifest.DocumentByShipd, Version: 1, CreatedAt: c.Now, UpdatedAt: c.Now}
	if got := m.Stored(); !reflect.DeepEqual(got, want) {
		t.Errorf("new manifest\n%+v\nwant\n%+v", got, want)
	}
	if m.AsksCarrier() || m.ID() != "mnf_1" || !m.BelongsTo("acc_1") || m.BelongsTo("acc_2") {
		t.Errorf("a manifest of shipd's document asks the carrier: %v", m.AsksCarrier())
	}
	c.Dispatch.Manifest = carrier.ManifestByCarrier
	m, _ = manifest.New(named(first, second), c)
	if !m.AsksCarrier() || m.Stored().Document != manifest.DocumentByCarrier {
		t.Errorf("a manifest of the carrier's document: %+v", m.Stored())
	}
	carried := []carrier.DispatchShipment{first.Carried(), second.Carried()}
	if got := m.Handover(carried); !reflect.DeepEqual(got, carrier.ManifestRequest{Key: "mnf_1", Date: "2026-11-30", Sender: sender,
		Origin: origin, Shipments: carried}) {
		t.Errorf("handed over as %+v", got)
	}
	s := m.Stored()
	s.ShipmentIDs[0] = "changed"
	if m.Stored().ShipmentIDs[0] == "changed" {
		t.Error("a change of a copy of the state reached the manifest")
	}
}

// Created records the carrier's reference once; where the carrier's
// document did not come, the document is shipd's.
func TestCreated(t *testing.T) {
	for _, tc := range []struct {
		dispatch        string
		carrierDocument bool
		want            string
	}{
		{carrier.ManifestByCarrier, true, manifest.DocumentByCarrier},
		{carrier.ManifestByCarrier, false, manifest.DocumentByShipd},
		{carrier.ManifestByShipd, false, manifest.DocumentByShipd},
	} {
		c := context(shipment(1))
		c.Dispatch.Manifest = tc.dispatch
		m, err := manifest.New(named(c.Shipments...), c)
		if err != nil {
			t.Fatal(err)
		}
		at := t0.Add(time.Minute)
		if err := m.Created("PROTOCOL-1", tc.carrierDocument, at); err != nil {
			t.Fatal(err)
		}
		s := m.Stored()
		if s.Status != manifest.StatusCreated || s.CarrierReference != "PROTOCOL-1" || s.Document != tc.want || s.Version != 2 ||
			!s.UpdatedAt.Equal(at) || !s.CreatedAt.Equal(t0) {
			t.Errorf("%s, the carrier's document %v: %+v", tc.dispatch, tc.carrierDocument, s)
		}
		err = m.Created("PROTOCOL-2", true, at.Add(time.Minute))
		if f, ok := fault.As(err); !ok || f.Kind != fault.KindConflict || f.Code != "manifest_created" {
			t.Errorf("created twice: %v", err)
		}
		if again := m.Stored(); !reflect.DeepEqual(again, s) {
			t.Errorf("a refused Created changed the manifest: %+v", again)
		}
	}
}
