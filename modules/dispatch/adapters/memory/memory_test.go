package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shipd/modules/dispatch/adapters/memory"
	"shipd/modules/dispatch/adapters/repositorytest"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The adapters' contract is repositorytest's, run by
// repository_contract_test.go against these fakes and the PostgreSQL
// adapters alike; these are what only the fakes have: interference, and
// answers of their own.

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

var dispatch = carrier.DispatchInfo{Pickups: true, PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByShipd}

func ptr[T any](v T) *T { return &v }

func ordering(t *testing.T, id string, shipments ...domain.Shipment) *pickup.Pickup {
	t.Helper()
	r := pickup.Request{ChannelID: "ch_1", Date: "2026-12-01", ReadyFrom: "09:00", ReadyUntil: "12:00",
		Address: &carrier.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Contact: &carrier.Contact{CompanyName: "Acme", Phone: "+420111222333"}}
	if len(shipments) == 0 {
		r.ParcelCount, r.TotalWeightKG = ptr(1), ptr(1.0)
	}
	known := map[string]domain.Shipment{}
	for _, sh := range shipments {
		r.ShipmentIDs = append(r.ShipmentIDs, sh.ID)
		known[sh.ID] = sh
	}
	p, err := pickup.New(r, pickup.Context{ID: id, AccountID: "acc_1", Provider: "fake", Dispatch: dispatch, Shipments: known,
		Windows: []domain.Window{domain.DefaultWindow}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Interfere fails each call of the pickups as a database might, before
// anything changes: no pickup stored, changed or forgotten, no shipment
// held.
func TestPickupsInterfered(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	repo := memory.NewPickups()
	sh := repositorytest.Shipment("acc_1", "ch_1", t0)
	if err := repo.Add(ctx, ordering(t, "pck_1")); err != nil {
		t.Fatal(err)
	}
	var asked []string
	repo.Interfere(func(op, id string) error { asked = append(asked, op+" "+id); return context.Canceled })
	calls := map[string]error{
		"Add": repo.Add(ctx, ordering(t, "pck_2", sh)),
		"Get": func() error { _, err := repo.Get(ctx, "pck_1"); return err }(),
		"Update": func() error {
			_, err := repo.Update(ctx, "pck_1", func(p *pickup.Pickup) ([]domain.Event, error) { return nil, p.Unconfirmed(t0) })
			return err
		}(),
		"Record": repo.Record(ctx, "pck_1", func(p *pickup.Pickup) error { return p.Accepted("h", t0) }),
		"Forget": repo.Forget(ctx, "pck_1"),
		"Stale":  func() error { _, err := repo.Stale(ctx, t0.Add(time.Hour), 10); return err }(),
	}
	for op, err := range calls {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("interfered %s: %v", op, err)
		}
	}
	if len(asked) != len(calls) {
		t.Errorf("interference asked %v", asked)
	}
	repo.Interfere(nil)
	p, err := repo.Get(ctx, "pck_1")
	if err != nil || p.Status() != pickup.StatusOrdering || p.OrderHandle() != "" {
		t.Errorf("after the interfered calls: %+v (%v)", p, err)
	}
	if _, err := repo.Get(ctx, "pck_2"); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("an interfered Add stored the pickup (%v)", err)
	}
	if err := repo.Add(ctx, ordering(t, "pck_3", sh)); !fault.Is(err, fault.KindValidation) {
		// the date is pck_1's: refused on date, not on the shipment
		t.Errorf("after an interfered Add: %v", err)
	} else if f, _ := fault.As(err); len(f.Fields["shipment_ids.0"]) != 0 {
		t.Errorf("an interfered Add held its shipment: %v", err)
	}
	if len(repo.Published()) != 0 {
		t.Errorf("published %v", repo.Published())
	}
}

// Interfere fails each call of the manifests before anything changes; the
// copy of shipments fails an operation told to, and hands out copies.
func TestManifestsInterferedAndShipmentsFailed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	manifests := memory.NewManifests()
	shipments := memory.NewShipments(manifests)
	sh := repositorytest.Shipment("acc_1", "ch_1", t0)
	shipments.Put(sh)
	m, err := manifest.New(manifest.Request{ChannelID: "ch_1", ShipmentIDs: []string{sh.ID}},
		manifest.Context{ID: "mnf_1", AccountID: "acc_1", Provider: "fake", Dispatch: dispatch, Shipments: []domain.Shipment{sh}, Named: true, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	manifests.Interfere(func(string, string) error { return context.Canceled })
	if err := manifests.Add(ctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Add: %v", err)
	}
	if _, err := manifests.Document(ctx, "mnf_1"); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Document: %v", err)
	}
	manifests.Interfere(nil)
	if got, err := shipments.Undispatched(ctx, "acc_1", "ch_1", 10); err != nil || len(got) != 1 {
		t.Errorf("an interfered Add held its shipment: %v (%v)", got, err)
	}
	if err := manifests.Add(ctx, m); err != nil {
		t.Fatal(err)
	}
	manifests.Interfere(func(op, _ string) error {
		if op == "Complete" || op == "Forget" {
			return context.Canceled
		}
		return nil
	})
	if _, err := manifests.Complete(ctx, "mnf_1", []byte("%PDF"), func(*manifest.Manifest) ([]domain.Event, error) { return nil, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Complete: %v", err)
	}
	if err := manifests.Forget(ctx, "mnf_1"); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Forget: %v", err)
	}
	if got, err := manifests.Get(ctx, "mnf_1"); err != nil || got.Stored().Status != manifest.StatusCreating {
		t.Errorf("after the interfered calls: %+v (%v)", got, err)
	}

	shipments.Fail("Find", context.DeadlineExceeded)
	if _, err := shipments.Find(ctx, []string{sh.ID}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("failed Find: %v", err)
	}
	if _, _, err := shipments.Latest(ctx, "acc_1", "ch_1"); err != nil {
		t.Errorf("Latest failed with Find: %v", err)
	}
	shipments.Fail("Find", nil)
	found, err := shipments.Find(ctx, []string{sh.ID})
	if err != nil {
		t.Fatal(err)
	}
	found[sh.ID].Parcels[0].Weight = 99
	found[sh.ID].TrackingNumbers[0] = "changed"
	if again, _ := shipments.Find(ctx, []string{sh.ID}); again[sh.ID].Parcels[0].Weight != 1.25 || again[sh.ID].TrackingNumbers[0] != sh.TrackingNumbers[0] {
		t.Errorf("a change of an answer reached the copy: %+v", again[sh.ID])
	}
}
