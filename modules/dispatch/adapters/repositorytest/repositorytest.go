// Package repositorytest is the contract of the dispatch module's driven
// ports as one suite: pickup.Repository, manifest.Repository,
// domain.Shipments (the module's copy of shipments) and query.Lists, run
// against the PostgreSQL adapters (on a real database) and against the
// in-memory ones the app-layer tests use, so a fake that drifts from the
// real adapters fails here, not in production (ADR 0037).
package repositorytest

import (
	"testing"
	"time"

	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"
)

// Subject is the module's driven side under test, and what it wrote to the
// outbox.
type Subject struct {
	Pickups   pickup.Repository
	Manifests manifest.Repository
	Shipments domain.Shipments
	Lists     query.Lists
	// Copy makes the copy of shipments read sh's newest event from the
	// shipments stream (deleted: its shipment.deleted), as the copy's
	// consumer group would.
	Copy func(t *testing.T, sh domain.Shipment, deleted bool)
	// CatchUp lets the lists read every event written so far, as their
	// projections would.
	CatchUp func(t *testing.T)
	// Written returns every event the repositories published so far, in
	// order.
	Written func(t *testing.T) []outboxtest.Message
}

// Run holds the adapters newSubject makes (empty ones for each test) to
// the contract of the module's ports.
func Run(t *testing.T, newSubject func(t *testing.T) Subject) {
	var cases []contracttest.Case[Subject]
	cases = append(cases, pickupCases...)
	cases = append(cases, manifestCases...)
	cases = append(cases, shipmentCases...)
	cases = append(cases, listCases...)
	contracttest.Run(t, newSubject, cases)
}

// t0 is a Monday morning, the suite's now.
var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

const (
	account  = "acc_1"
	stranger = "acc_2"
	provider = "fake"
)

// The dates the suite's pickups are ordered for.
const (
	tuesday   = "2026-12-01"
	wednesday = "2026-12-02"
	thursday  = "2026-12-03"
)

// info is the dispatch of the suite's provider: pickups of named shipments
// or counts, and its own manifests.
var info = carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityCarrier,
	PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByCarrier,
	CancelAfterManifest: carrier.CancelAfterManifestRefused}

var (
	origin = carrier.Address{StreetName: "Skladová", HouseNumber: "1", ApartmentNumber: "2a", CityName: "Praha",
		PostalCode: "110 00", CountryCode: "CZ"}
	sender = carrier.Contact{CompanyName: "Acme s.r.o.", FirstName: "Petr", LastName: "Novák", Email: "ship@acme.test",
		Phone: "+420111222333"}
)

func ptr[T any](v T) *T { return &v }

// Shipment is a created shipment of account's channel, made at created,
// with two parcels (one weighed in grams), their tracking numbers and cash
// on delivery.
func Shipment(account, channel string, created time.Time) domain.Shipment {
	id := ids.New(ids.Shipment)
	return domain.Shipment{ID: id, AccountID: account, ChannelID: channel, Status: "created", ProviderShipmentID: "P-" + id,
		Reference: "order " + id[len(id)-6:], ProductType: "standard",
		Parcels: []carrier.Parcel{
			{Type: "package", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM", Weight: 1.25, WeightUnit: "KG"},
			{Type: "envelope", Length: 35, Width: 25, Height: 1, DimensionUnit: "CM", Weight: 300, WeightUnit: "G"},
		},
		TrackingNumbers: []string{"TN1-" + id, "TN2-" + id},
		Sender:          sender, Origin: origin,
		Recipient:   carrier.Contact{FirstName: "Jana", LastName: "Nováková", Email: "jana@example.test", Phone: "+420777888999"},
		Destination: carrier.Address{StreetName: "Dlouhá", HouseNumber: "12", CityName: "Brno", PostalCode: "602 00", CountryCode: "CZ"},
		COD:         &carrier.Money{Minor: 123450, Currency: "CZK"},
		CreatedAt:   created,
	}
}

// newPickup is account's pickup being ordered under id through channel on
// date from 09:00 to 12:00, made at now: of shipments, or of a count and
// a weight when none are given.
func newPickup(t *testing.T, id, channel, date string, now time.Time, shipments ...domain.Shipment) *pickup.Pickup {
	t.Helper()
	address, contact := origin, sender
	r := pickup.Request{ChannelID: channel, Date: date, ReadyFrom: "09:00", ReadyUntil: "12:00", Address: &address,
		Contact: &contact, Note: "ring at gate B"}
	known := map[string]domain.Shipment{}
	for _, sh := range shipments {
		r.ShipmentIDs = append(r.ShipmentIDs, sh.ID)
		known[sh.ID] = sh
	}
	if len(shipments) == 0 {
		r.ParcelCount, r.TotalWeightKG = ptr(3), ptr(4.5)
	}
	p, err := pickup.New(r, pickup.Context{ID: id, AccountID: account, Provider: provider, Dispatch: info, Shipments: known,
		Windows: []domain.Window{{From: 8 * 60, Until: 18 * 60}}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// addPickup stores a new pickup being ordered.
func addPickup(t *testing.T, s Subject, channel, date string, shipments ...domain.Shipment) *pickup.Pickup {
	t.Helper()
	p := newPickup(t, ids.New(ids.Pickup), channel, date, t0, shipments...)
	if err := s.Pickups.Add(t.Context(), p); err != nil {
		t.Fatalf("adding a pickup: %v", err)
	}
	return p
}

func getPickup(t *testing.T, s Subject, id string) pickup.Stored {
	t.Helper()
	p, err := s.Pickups.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return p.Stored()
}

func pickupEvent(p *pickup.Pickup, at time.Time) contract.PickupEvent {
	s := p.Stored()
	return contract.PickupEvent{AccountID: s.AccountID, Version: s.Version, OccurredAt: at, Pickup: command.PickupSnapshot(s)}
}

// confirmed is an Update's fn that records the carrier's confirmation at
// at, with pickup.created.
func confirmed(at time.Time) func(p *pickup.Pickup) ([]domain.Event, error) {
	return func(p *pickup.Pickup) ([]domain.Event, error) {
		if err := p.Confirmed(carrier.CourierPickup{ConfirmationNumber: "C-" + p.ID(), Date: p.Stored().Date,
			ReadyFrom: "09:30", ReadyUntil: "11:30", Handle: "checksum-7"}, at); err != nil {
			return nil, err
		}
		return []domain.Event{contract.PickupCreated{PickupEvent: pickupEvent(p, at)}}, nil
	}
}

// unconfirmed records a lost answer at at, with pickup.unconfirmed.
func unconfirmed(at time.Time) func(p *pickup.Pickup) ([]domain.Event, error) {
	return func(p *pickup.Pickup) ([]domain.Event, error) {
		if err := p.Unconfirmed(at); err != nil {
			return nil, err
		}
		return []domain.Event{contract.PickupUnconfirmed{PickupEvent: pickupEvent(p, at)}}, nil
	}
}

// cancelled records a cancel at at, with pickup.cancelled.
func cancelled(at time.Time) func(p *pickup.Pickup) ([]domain.Event, error) {
	return func(p *pickup.Pickup) ([]domain.Event, error) {
		if err := p.Cancel(info, at); err != nil {
			return nil, err
		}
		return []domain.Event{contract.PickupCancelled{PickupEvent: pickupEvent(p, at)}}, nil
	}
}

// update changes pickup id by fn, failing t when it cannot.
func update(t *testing.T, s Subject, id string, fn func(p *pickup.Pickup) ([]domain.Event, error)) *pickup.Pickup {
	t.Helper()
	p, err := s.Pickups.Update(t.Context(), id, fn)
	if err != nil {
		t.Fatalf("updating %s: %v", id, err)
	}
	return p
}

// newManifest is account's manifest being created under id through
// channel at now, of shipments (named: the request lists them).
func newManifest(t *testing.T, id, channel string, now time.Time, shipments ...domain.Shipment) *manifest.Manifest {
	t.Helper()
	r := manifest.Request{ChannelID: channel}
	for _, sh := range shipments {
		r.ShipmentIDs = append(r.ShipmentIDs, sh.ID)
	}
	m, err := manifest.New(r, manifest.Context{ID: id, AccountID: account, Provider: provider, Dispatch: info,
		Shipments: shipments, Named: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// addManifest stores a new manifest being created.
func addManifest(t *testing.T, s Subject, channel string, shipments ...domain.Shipment) *manifest.Manifest {
	t.Helper()
	m := newManifest(t, ids.New(ids.Manifest), channel, t0, shipments...)
	if err := s.Manifests.Add(t.Context(), m); err != nil {
		t.Fatalf("adding a manifest: %v", err)
	}
	return m
}

func getManifest(t *testing.T, s Subject, id string) manifest.Stored {
	t.Helper()
	m, err := s.Manifests.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m.Stored()
}

// created is Complete's fn that records the carrier's reference at at,
// with manifest.created.
func created(at time.Time) func(m *manifest.Manifest) ([]domain.Event, error) {
	return func(m *manifest.Manifest) ([]domain.Event, error) {
		if err := m.Created("PROTOCOL-"+m.ID(), true, at); err != nil {
			return nil, err
		}
		s := m.Stored()
		return []domain.Event{contract.ManifestCreated{ManifestEvent: contract.ManifestEvent{AccountID: s.AccountID,
			Version: s.Version, OccurredAt: at, Manifest: command.ManifestSnapshot(s)}}}, nil
	}
}

// complete completes manifest id with document, failing t when it cannot.
func complete(t *testing.T, s Subject, id string, document []byte) *manifest.Manifest {
	t.Helper()
	m, err := s.Manifests.Complete(t.Context(), id, document, created(t0.Add(time.Minute)))
	if err != nil {
		t.Fatalf("completing %s: %v", id, err)
	}
	return m
}

// onFields reports whether err is a validation fault whose problems are
// exactly want (path: message).
func onFields(t *testing.T, err error, want map[string]string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok || f.Kind != fault.KindValidation {
		t.Errorf("error %v, want a validation fault on %v", err, want)
		return
	}
	if len(f.Fields) != len(want) {
		t.Errorf("fields %v, want %v", f.Fields, want)
	}
	for path, msg := range want {
		if got := f.Fields[path]; len(got) != 1 || got[0] != msg {
			t.Errorf("%s: %q, want %q", path, got, msg)
		}
	}
}

func wantNames(t *testing.T, s Subject, want ...string) {
	t.Helper()
	outboxtest.WantNames(t, "written", s.Written(t), want...)
}
