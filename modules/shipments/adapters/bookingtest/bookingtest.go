// Package bookingtest holds every carrier adapter to ADR 0041 with the
// shipments module's real booking use case: it books a shipment through the
// adapter against the adapter's vendor fake, fails each step after the
// carrier's acceptance (the label fetch, the merge, a tracking number the
// answer lacked, the process killed between the carrier's answer and the
// record, and right after the record), lets the booking be tried again to
// the end, and checks that the vendor holds exactly one shipment for it and
// that it ended created with its label. Each adapter's tests call Run with
// its fake; the use case, the in-memory repository and the label merger are
// the real ones.
package bookingtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"shipd/adapters/labels"
	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/failpoint"
	"shipd/platform/failswitch"
	"shipd/platform/usecase/usecasetest"
)

// Vendor is a carrier adapter wired to its vendor fake.
type Vendor struct {
	// Provider is the adapter, pointed at the fake.
	Provider carrier.Provider
	// Settings are a channel's settings that work with the fake.
	Settings map[string]any
	// Shipment adjusts the default request (two parcels, CZ to CZ, no
	// cash on delivery) to one this carrier books: its countries, product,
	// pickup point. nil keeps the default.
	Shipment func(r *domain.Request)
	// Bookings counts the shipments the fake holds, as the vendor's own
	// records would show them (one booking call that made a shipment, or
	// its batch or packets, is one).
	Bookings func() int
	// FailLabels makes the fake's next n label answers fail as the vendor's
	// label service failing would (a 5xx). For a carrier whose labels come
	// only with the booking, its label-reprint operation's answers. nil
	// only with LabelsOnlyWithBooking.
	FailLabels func(n int)
	// LabelsOnlyWithBooking says the carrier hands out labels in its
	// booking's answer only and cannot print them again (DHL Express). The
	// labels are kept with the acceptance (domain.LabelParts), so a merge
	// that fails or a stop after the acceptance still ends with them; an
	// attempt stopped between the answer and the acceptance's record loses
	// them, and the shipment must end created without a label, its label
	// step given up, still booked once.
	LabelsOnlyWithBooking bool
	// DropTrackingNumber makes the fake's next booking answer lack the last
	// parcel's tracking number (the booking is still made in full). nil
	// where the vendor's answer cannot lack one without failing the whole
	// booking; the adapter's test says why.
	DropTrackingNumber func()
}

// Run runs every scenario against v, one after another (the failpoints
// are the process's: callers must not run it in parallel with tests of the
// same package that book).
func Run(t *testing.T, v Vendor) {
	t.Helper()
	type scenario struct {
		name   string
		break_ func(*rig)
		// labelLost: the answer's labels never reached the record, which
		// a carrier that prints only at booking cannot make good.
		labelLost bool
	}
	scenarios := []scenario{
		{"labels fail to merge, then the label service fails twice", func(r *rig) {
			r.merger.fail.Arm(1)
			if v.FailLabels != nil {
				v.FailLabels(2)
			}
		}, false},
		{"killed between the carrier's answer and the record", func(r *rig) { r.stop = failpoint.AfterCarrierAnswer }, true},
		{"killed after the acceptance was recorded", func(r *rig) { r.stop = failpoint.AfterCarrierAccepted }, false},
	}
	if _, ok := v.Provider.(carrier.BookingFinder); ok {
		scenarios = append(scenarios, scenario{"the handle's record lost (killed before it committed)", func(r *rig) { r.loseHandle() }, true})
	}
	if v.DropTrackingNumber != nil {
		scenarios = append(scenarios, scenario{"a tracking number missing from the answer", func(*rig) { v.DropTrackingNumber() }, false})
	}
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := newRig(t, v)
			id := fmt.Sprintf("sh_bookingtest_%d", i)
			r.create(t, id)
			before := v.Bookings()
			sc.break_(r)
			r.bookToTheEnd(t, id, !(v.LabelsOnlyWithBooking && sc.labelLost))
			if got := v.Bookings() - before; got != 1 {
				t.Errorf("the vendor holds %d shipments for one booking, want 1", got)
			}
		})
	}
}

// rig is one booking use case on the in-memory repository, with the real
// label merger (which can be made to fail).
type rig struct {
	repo   *memory.Repository
	create func(t *testing.T, id string)
	book   func(ctx context.Context, id string, retried bool) error
	merger *merger
	stop   string // a failpoint to stop the first attempt at
}

func newRig(t *testing.T, v Vendor) *rig {
	const account, channelID = "acc_bookingtest", "ch_bookingtest"
	r := &rig{repo: memory.NewRepository(), merger: &merger{}}
	info := v.Provider.Info()
	chs := channelstest.New(channels.ChannelAccess{ID: channelID, AccountID: account, Name: info.Name, Provider: info.Code,
		Status: "active", Settings: v.Settings})
	// Wrapped as the composition root wraps every provider, so what the
	// use case asks of it by type assertion is what the service sees.
	providers := carrier.NewRegistry(carrier.Observe(v.Provider, func(string, string, time.Duration, string) {}))
	obs := usecasetest.Observer()
	clk := clock.Real{}
	create := command.NewCreateShipmentHandler(r.repo, chs, providers, clk, obs)
	book := command.NewBookShipmentHandler(r.repo, chs, providers, r.merger, clk, 10*time.Second, obs)
	r.create = func(t *testing.T, id string) {
		t.Helper()
		req := defaultRequest(channelID, id)
		if v.Shipment != nil {
			v.Shipment(&req)
		}
		if err := create.Handle(t.Context(), command.CreateShipment{AccountID: account, ShipmentID: id, Shipment: req}); err != nil {
			t.Fatalf("creating the shipment: %v", err)
		}
	}
	r.book = func(ctx context.Context, id string, retried bool) error {
		return book.Handle(ctx, command.BookShipment{ShipmentID: id, Retried: retried})
	}
	return r
}

// loseHandle makes the next save of the shipment fail: the booking's handle,
// which the adapter records before it answers, is lost as if the process
// had died before its commit.
func (r *rig) loseHandle() {
	var once sync.Once
	r.repo.Interfere(func(op, _ string) error {
		var err error
		if op == "Update" {
			once.Do(func() { err = errors.New("the process died before the handle committed (bookingtest)") })
		}
		return err
	})
}

// bookToTheEnd tries the booking as the worker does, until it is decided
// (at most 15 attempts), stopping the first at r.stop when one is set. The
// shipment must end created with its label, or, where the carrier cannot
// print it again (withLabel false), created without one, its label step
// given up.
func (r *rig) bookToTheEnd(t *testing.T, id string, withLabel bool) {
	t.Helper()
	if r.stop != "" {
		disarm := failpoint.Stop(r.stop, 1)
		err := r.book(t.Context(), id, false)
		if hits := disarm(); hits != 1 || !errors.Is(err, failpoint.ErrStopped) {
			t.Fatalf("the first attempt passed %s %d times and answered %v", r.stop, hits, err)
		}
	}
	var errs []error
	for attempt := range 15 {
		err := r.book(t.Context(), id, attempt > 0 || r.stop != "")
		if err == nil {
			break
		}
		if !errors.Is(err, command.ErrCarrierUnavailable) {
			t.Fatalf("an attempt failed unexpectedly: %v", err)
		}
		errs = append(errs, err)
	}
	sh, err := r.repo.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	st := sh.Stored()
	if !withLabel {
		gaveUp := slices.ContainsFunc(st.Errors, func(p domain.Problem) bool { return p.Field == domain.LabelField })
		if st.Status != domain.StatusCreated || st.HasLabel || !gaveUp || st.ProviderShipmentID == "" || !sh.TrackingNumbersComplete() {
			t.Fatalf("after %d failed attempts (%v) the shipment is %s, has_label %v, carrier id %q, errors %+v; want it created without a label, its label step given up",
				len(errs), errors.Join(errs...), st.Status, st.HasLabel, st.ProviderShipmentID, st.Errors)
		}
		return
	}
	if st.Status != domain.StatusCreated || !st.HasLabel || st.ProviderShipmentID == "" || !sh.TrackingNumbersComplete() {
		t.Fatalf("after %d failed attempts (%v) the shipment is %s, has_label %v, carrier id %q, errors %+v; want it created with its label",
			len(errs), errors.Join(errs...), st.Status, st.HasLabel, st.ProviderShipmentID, st.Errors)
	}
	l, err := r.repo.Label(t.Context(), id)
	if err != nil || l == nil || len(l.Data) == 0 || l.Format != st.LabelFormat {
		t.Fatalf("the stored label: %+v, %v", l, err)
	}
}

// defaultRequest is two parcels from Prague to Brno.
func defaultRequest(channelID, id string) domain.Request {
	return domain.Request{
		ChannelID: channelID, ReferenceNumber: "BT-" + id,
		Sender:      &domain.Contact{CompanyName: "Acme s.r.o.", FirstName: "Petr", LastName: "Novák", EmailAddress: "ship@acme.example", PhoneNumber: "+420111222333"},
		Recipient:   &domain.Contact{FirstName: "Jana", LastName: "Nováková", EmailAddress: "jana@example.com", PhoneNumber: "+420777888999"},
		Origin:      &domain.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Destination: &domain.Address{StreetName: "Dlouhá", HouseNumber: "12", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Parcels: []domain.Parcel{
			{ParcelType: "package", LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, DimensionUnit: "CM", WeightAmount: 1.5, WeightUnit: "KG"},
			{ParcelType: "package", LengthDimension: 20, WidthDimension: 20, HeightDimension: 20, DimensionUnit: "CM", WeightAmount: 2, WeightUnit: "KG"},
		},
	}
}

// merger is the real label merger, made to fail its next merges (fail).
type merger struct {
	fail failswitch.Countdown
}

func (m *merger) Merge(format string, parts [][]byte) ([]byte, error) {
	if m.fail.Take() {
		return nil, errors.New("merge labels: part 0 is not a valid file (bookingtest)")
	}
	return labels.Merge(format, parts)
}

func (m *merger) MIMEType(format string) string { return labels.MIMEType(format) }
