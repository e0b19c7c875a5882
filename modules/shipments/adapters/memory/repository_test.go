package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The repository's contract is repositorytest's, run by
// repository_contract_test.go against this fake and the PostgreSQL
// repository alike; these add what only the fake has (interference).

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// shipment is a pending shipment of acc_1 with one parcel, under id, as
// the create use case makes it.
func shipment(t *testing.T, id string) *domain.Shipment {
	t.Helper()
	contact := &domain.Contact{FirstName: "Jana", LastName: "Nová", EmailAddress: "j@example.com", PhoneNumber: "+420123456789"}
	address := &domain.Address{StreetName: "Main", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"}
	req := domain.Request{ChannelID: "ch_1", Sender: contact, Recipient: contact, Origin: address, Destination: address,
		Parcels: []domain.Parcel{{LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, WeightAmount: 1}}}
	info := carrier.ProviderInfo{Code: "fake", LabelFormats: []string{"pdf"}, MaxParcels: 1}
	sh, err := domain.New(id, "acc_1", req, info, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

func added(t *testing.T) *memory.Repository {
	t.Helper()
	repo := memory.NewRepository()
	if err := repo.Add(t.Context(), shipment(t, "sh_1")); err != nil {
		t.Fatal(err)
	}
	return repo
}

func version(t *testing.T, repo *memory.Repository) int {
	t.Helper()
	sh, err := repo.Get(t.Context(), "sh_1")
	if err != nil {
		t.Fatal(err)
	}
	return sh.Stored().Version
}

// Update saves nothing when fn fails, as the PostgreSQL repository rolls
// back; a change without an event (a booking's handle) is saved; a saved
// Booked keeps its label.
func TestUpdateSavesOnlyWhatFnChanged(t *testing.T) {
	t.Parallel()
	repo := added(t)
	ctx := t.Context()
	refuse := errors.New("refused")
	if _, err := repo.Update(ctx, "sh_1", func(sh *domain.Shipment) ([]domain.Event, error) {
		sh.Touch(t0)
		return []domain.Event{contract.ShipmentUpdated{}}, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v", err)
	}
	if v := version(t, repo); v != 1 {
		t.Fatalf("version %d after a change that failed", v)
	}
	if _, err := repo.Update(ctx, "sh_1", func(sh *domain.Shipment) ([]domain.Event, error) { return nil, sh.BookingAccepted("BATCH-1") }); err != nil {
		t.Fatal(err)
	}
	if sh, err := repo.Get(ctx, "sh_1"); err != nil || sh.Stored().BookingHandle != "BATCH-1" || sh.Stored().Version != 1 {
		t.Fatalf("a booking's handle was not saved: %+v %v", sh.Stored(), err)
	}
	if _, err := repo.Update(ctx, "sh_1", func(sh *domain.Shipment) ([]domain.Event, error) {
		return []domain.Event{contract.ShipmentCreated{}}, sh.Booked("P", []string{"TN"}, nil, domain.Label{Format: "pdf", Data: []byte("L")}, t0)
	}); err != nil {
		t.Fatal(err)
	}
	l, err := repo.Label(ctx, "sh_1")
	if v := version(t, repo); v != 2 || err != nil || l == nil || string(l.Data) != "L" {
		t.Fatalf("version %d, label %+v (%v)", v, l, err)
	}
	if n := len(repo.Published()); n != 1 {
		t.Fatalf("published %d events, want the one saved", n)
	}
}

// A missing shipment is fault.NotFound for every operation but Label,
// which answers nil; an id taken is refused; a vetoed delete keeps it.
func TestMissingTakenAndVetoed(t *testing.T) {
	t.Parallel()
	repo := added(t)
	ctx := t.Context()
	keep := func(*domain.Shipment) ([]domain.Event, error) { return nil, nil }
	for name, err := range map[string]error{
		"Get":    func() error { _, err := repo.Get(ctx, "sh_none"); return err }(),
		"Update": func() error { _, err := repo.Update(ctx, "sh_none", keep); return err }(),
		"Delete": repo.Delete(ctx, "sh_none", keep),
	} {
		if !fault.Is(err, fault.KindNotFound) {
			t.Errorf("%s of a missing shipment: %v", name, err)
		}
	}
	if l, err := repo.Label(ctx, "sh_none"); l != nil || err != nil {
		t.Errorf("label of a missing shipment: %v, %v", l, err)
	}
	if err := repo.Add(ctx, shipment(t, "sh_1")); err == nil {
		t.Error("an id taken was added again")
	}
	veto := errors.New("veto")
	if err := repo.Delete(ctx, "sh_1", func(*domain.Shipment) ([]domain.Event, error) { return nil, veto }); !errors.Is(err, veto) {
		t.Errorf("vetoed delete: %v", err)
	}
	if v := version(t, repo); v != 1 {
		t.Errorf("vetoed delete: version %d", v)
	}
	repo.Interfere(func(op, id string) error { return context.Canceled })
	if _, err := repo.Get(ctx, "sh_1"); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Get: %v", err)
	}
}
