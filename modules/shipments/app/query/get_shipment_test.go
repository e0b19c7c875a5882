package query_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// The app-layer tests of the shipments queries read shipments that the
// in-memory repository holds, stored as the commands store them.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

const (
	account  = "acc_1"
	stranger = "acc_2"
)

// store adds a pending shipment of account (ref its reference number, on
// channel ch) created at t0 plus minutes.
func store(t *testing.T, repo *memory.Repository, id, ref, ch string, minutes int) *domain.Shipment {
	t.Helper()
	sh := shipment(t, id, account, ref, ch, t0.Add(time.Duration(minutes)*time.Minute))
	if err := repo.Add(t.Context(), sh); err != nil {
		t.Fatal(err)
	}
	return sh
}

// shipment is a pending shipment of one parcel on channel ch (of the fake
// provider, printing pdf) of accountID, made at now as the create use case
// makes it.
func shipment(t *testing.T, id, accountID, ref, ch string, now time.Time) *domain.Shipment {
	t.Helper()
	contact := &domain.Contact{FirstName: "Jana", LastName: "Nová", EmailAddress: "j@example.com", PhoneNumber: "+420123456789"}
	address := &domain.Address{StreetName: "Main", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"}
	req := domain.Request{ChannelID: ch, ReferenceNumber: ref, LabelFormat: "pdf", Sender: contact, Recipient: contact,
		Origin: address, Destination: address,
		Parcels: []domain.Parcel{{LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, WeightAmount: 1}}}
	info := carrier.ProviderInfo{Code: "fake", LabelFormats: []string{"pdf"}, MaxParcels: 1}
	sh, err := domain.New(id, accountID, req, info, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// book records the carrier's booking of id, with its label.
func book(t *testing.T, repo *memory.Repository, id string) {
	t.Helper()
	_, err := repo.Update(t.Context(), id, func(sh *domain.Shipment) ([]domain.Event, error) {
		label := domain.Label{Format: "pdf", MIMEType: "application/pdf", Data: []byte("%PDF-" + id)}
		if err := sh.Booked("P-"+id, []string{"TN-" + id}, &carrier.Money{Minor: 490, Currency: "EUR"}, label, t0.Add(time.Hour)); err != nil {
			return nil, err
		}
		return []domain.Event{contract.ShipmentCreated{}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A shipment is read back as its record, by its account only.
func TestGetShipment(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	store(t, repo, "sh_1", "ORDER-1", "ch_1", 0)
	book(t, repo, "sh_1")
	get := query.NewGetShipmentHandler(repo, usecasetest.Observer())

	got, err := get.Handle(t.Context(), query.GetShipment{AccountID: account, ID: "sh_1"})
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := repo.Get(t.Context(), "sh_1")
	if want := command.Record(sh.Stored()); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got.Status != "created" || got.ProviderShipmentID == nil || *got.ProviderShipmentID != "P-sh_1" || *got.Parcels[0].TrackingNumber != "TN-sh_1" {
		t.Errorf("record %+v", got)
	}
	_, err = get.Handle(t.Context(), query.GetShipment{AccountID: stranger, ID: "sh_1"})
	wantKind(t, err, fault.KindForbidden)
	_, err = get.Handle(t.Context(), query.GetShipment{AccountID: account, ID: "sh_none"})
	wantKind(t, err, fault.KindNotFound)
}

// The label is there once the carrier created the shipment; before, the
// answer says it is not available and why.
func TestGetLabel(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	store(t, repo, "sh_pending", "ORDER-1", "ch_1", 0)
	store(t, repo, "sh_booked", "ORDER-2", "ch_1", 1)
	book(t, repo, "sh_booked")
	get := query.NewGetLabelHandler(repo, usecasetest.Observer())

	got, err := get.Handle(t.Context(), query.GetLabel{AccountID: account, ID: "sh_booked"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Label.Format != "pdf" || got.Label.MIMEType != "application/pdf" || string(got.Label.Data) != "%PDF-sh_booked" ||
		got.Shipment.ID != "sh_booked" || !got.Shipment.HasLabel {
		t.Errorf("label %+v of %+v", got.Label, got.Shipment)
	}

	_, err = get.Handle(t.Context(), query.GetLabel{AccountID: account, ID: "sh_pending"})
	if f, ok := fault.As(err); !ok || f.Kind != fault.KindNotFound || f.Code != "label_not_available" ||
		f.Message != "The label is not available: the carrier has not created this shipment (status pending)." {
		t.Errorf("label of a pending shipment: %v", err)
	}
	_, err = get.Handle(t.Context(), query.GetLabel{AccountID: stranger, ID: "sh_booked"})
	wantKind(t, err, fault.KindForbidden)
	_, err = get.Handle(t.Context(), query.GetLabel{AccountID: account, ID: "sh_none"})
	wantKind(t, err, fault.KindNotFound)

	repo.Interfere(func(op, _ string) error {
		if op == "Label" {
			return errDatabase
		}
		return nil
	})
	if _, err := get.Handle(t.Context(), query.GetLabel{AccountID: account, ID: "sh_booked"}); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
}

var errDatabase = errors.New("connection reset by peer")

// The list answers the account's shipments newest first, filtered and a
// page at a time, with the number of all matches.
func TestListShipments(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	store(t, repo, "sh_1", "ORDER-1", "ch_1", 0)
	store(t, repo, "sh_2", "ORDER-2", "ch_2", 1)
	store(t, repo, "sh_3", "RETURN-3", "ch_1", 2)
	store(t, repo, "sh_4", "ORDER-4", "ch_1", 3)
	book(t, repo, "sh_2")
	book(t, repo, "sh_3")
	foreign := shipment(t, "sh_x", stranger, "ORDER-X", "ch_1", t0)
	if err := repo.Add(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	list := query.NewListShipmentsHandler(memory.NewShipmentList(repo), usecasetest.Observer())
	for _, tc := range []struct {
		name  string
		q     query.ListShipments
		want  []string
		total int
	}{
		{"all", query.ListShipments{Limit: 10}, []string{"sh_4", "sh_3", "sh_2", "sh_1"}, 4},
		{"a page", query.ListShipments{Offset: 1, Limit: 2}, []string{"sh_3", "sh_2"}, 4},
		{"past the end", query.ListShipments{Offset: 4, Limit: 2}, []string{}, 4},
		{"by status", query.ListShipments{Status: "created", Limit: 10}, []string{"sh_3", "sh_2"}, 2},
		{"by channel", query.ListShipments{ChannelID: "ch_1", Limit: 10}, []string{"sh_4", "sh_3", "sh_1"}, 3},
		{"by both", query.ListShipments{Status: "pending", ChannelID: "ch_1", Limit: 1}, []string{"sh_4"}, 2},
		{"by reference prefix", query.ListShipments{Search: "ORDER-", Limit: 10}, []string{"sh_4", "sh_2", "sh_1"}, 3},
		{"by provider shipment id", query.ListShipments{Search: "P-sh_3", Limit: 10}, []string{"sh_3"}, 1},
	} {
		tc.q.AccountID = account
		usecasetest.WantPage(t, tc.name, list, tc.q, func(s contract.Summary) string { return s.ID }, tc.want, tc.total)
	}
}

func wantKind(t *testing.T, err error, k fault.Kind) {
	t.Helper()
	if !fault.Is(err, k) {
		t.Errorf("error %v, want a fault of kind %d", err, k)
	}
}
