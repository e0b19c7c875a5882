package command_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// A booking the carrier accepts records its shipment id, tracking numbers,
// price and merged label, and publishes shipment.created and the move from
// pending to created.
func TestBookRecordsTheCarriersAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture()
	cmd := request("sh_1", 2)
	withCOD(&cmd)
	f.created(t, cmd)
	f.clock.Advance(time.Minute)
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "sh_1")
	if st.Status != domain.StatusCreated || st.IsSuccessful == nil || !*st.IsSuccessful || st.ProviderShipmentID != "P-ORDER-sh_1" ||
		st.Price() == nil || *st.Price() != (carrier.Money{Minor: 490, Currency: "EUR"}) || !st.HasLabel || len(st.Errors) != 0 ||
		st.Version != 2 || !st.UpdatedAt.Equal(f.clock.Now()) {
		t.Errorf("booked %+v", st)
	}
	for i, p := range st.Parcels {
		if want := fmt.Sprintf("TN%d", i+1); p.TrackingNumber == nil || *p.TrackingNumber != want {
			t.Errorf("parcel %d: tracking number %v, want %s", i, p.TrackingNumber, want)
		}
	}
	label, err := f.repo.Label(t.Context(), "sh_1")
	if err != nil || label == nil || label.Format != "pdf" || label.MIMEType != "test/pdf" || string(label.Data) != "pdf:label 1|label 2" {
		t.Errorf("label %+v (%v): want the carrier's labels merged in parcel order", label, err)
	}
	if got := f.events(t, 0); !slices.Equal(got, []string{"shipment.requested v1 pending", "shipment.created v2 created", "shipment.status_changed v2 pending>created"}) {
		t.Errorf("events %v", got)
	}
	if snap := f.lastSnapshot(t); snap.ProviderShipmentID == nil || *snap.Parcels[1].TrackingNumber != "TN2" || snap.TotalPrice == nil || *snap.TotalPrice != 4.90 {
		t.Errorf("snapshot %+v", snap)
	}
	// The carrier was asked with the channel's settings and the shipment in
	// its terms.
	if calls := f.carrier.Calls(); !slices.Equal(calls, []string{"create"}) {
		t.Errorf("carrier calls %v", calls)
	}
	req := f.carrier.requests[0]
	if req.Reference != "ORDER-sh_1" || req.ProductType != "STANDARD_COD" || req.LabelFormat != "pdf" ||
		!req.ShippingDate.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) || req.COD == nil || *req.COD != cod ||
		req.Sender.Email != "s@example.com" || req.Recipient.Phone != "+420123456789" || req.Origin.CityName != "Praha" ||
		req.Destination.PostalCode != "60200" || len(req.Parcels) != 2 || req.Parcels[1].Height != 11 || req.Parcels[0].WeightUnit != "KG" {
		t.Errorf("carrier request %+v", req)
	}
	if s := f.carrier.settings[0]; s.String("clientSecret") != "secret" {
		t.Errorf("carrier settings %v", s)
	}
}

// A carrier that books without labels is asked for them, for the shipment
// it just created and in the shipment's format.
func TestBookFetchesLabelsTheCarrierDidNotReturn(t *testing.T) {
	t.Parallel()
	f := newFixture()
	cmd := request("sh_1", 2)
	cmd.Shipment.LabelFormat = "zpl"
	f.created(t, cmd)
	f.carrier.onCreate = func(_ context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		return bookedAnswer(req, false), nil
	}
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	if calls := f.carrier.Calls(); !slices.Equal(calls, []string{"create", "labels"}) {
		t.Errorf("carrier calls %v", calls)
	}
	if ref := f.carrier.refs[0]; ref.ProviderShipmentID != "P-ORDER-sh_1" || !slices.Equal(ref.TrackingNumbers, []string{"TN1", "TN2"}) {
		t.Errorf("labels asked for %+v", ref)
	}
	label, err := f.repo.Label(t.Context(), "sh_1")
	if err != nil || label == nil || label.Format != "zpl" || string(label.Data) != "zpl:fetched TN1|fetched TN2" {
		t.Errorf("label %+v (%v)", label, err)
	}
}

// Every way a booking ends without the carrier's shipment: refused for
// good (rejected, with the problems the client reads), or left pending for
// the worker to try again (ErrCarrierUnavailable, a fault unavailable).
func TestBookRejectsOrRetries(t *testing.T) {
	t.Parallel()
	gone := []domain.Problem{{Field: "shipping_channel_id", Message: "the shipping channel is no longer active"}}
	for _, tc := range []struct {
		name   string
		setup  func(*fixture)
		giveUp bool
		// retried: the error says try again; otherwise the shipment is
		// rejected with problems (a message that contains Message).
		retried   bool
		problems  []domain.Problem
		wantCalls []string
	}{
		{name: "channels unavailable", setup: func(f *fixture) { f.channels.Fail("ch_1", fault.Unavailable("channels is down")) }, retried: true},
		{name: "channels unavailable, giving up", setup: func(f *fixture) { f.channels.Fail("ch_1", fault.Unavailable("channels is down")) }, giveUp: true,
			problems: []domain.Problem{{Message: "the carrier could not be reached; gave up after repeated attempts (channels is down)"}}},
		{name: "channel gone", setup: func(f *fixture) { f.channels.Remove("ch_1") }, problems: gone},
		{name: "channel given to another account", setup: func(f *fixture) {
			ch := activeChannel()
			ch.AccountID = stranger
			f.channels.Put(ch)
		}, problems: gone},
		{name: "channel inactive", setup: func(f *fixture) {
			ch := activeChannel()
			ch.Status = "invalid"
			f.channels.Put(ch)
		}, problems: gone},
		{name: "provider cannot ship", setup: func(f *fixture) {
			ch := activeChannel()
			ch.Provider = trackerOnlyCode
			f.channels.Put(ch)
		}, problems: []domain.Problem{{Field: "shipping_channel_id", Message: "provider trackonly cannot create shipments"}}},
		{name: "carrier refuses for reasons", setup: func(f *fixture) {
			f.carrier.onCreate = func(context.Context, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				return carrier.CreatedShipment{}, carrier.Rejections{
					carrier.Reject("destination_address.postal_code", "not served"), carrier.Reject("", "too heavy")}
			}
		}, problems: []domain.Problem{{Field: "destination_address.postal_code", Message: "not served"}, {Message: "too heavy"}},
			wantCalls: []string{"create"}},
		{name: "carrier refuses for one reason", setup: func(f *fixture) {
			f.carrier.onCreate = func(context.Context, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				return carrier.CreatedShipment{}, fmt.Errorf("booking: %w", carrier.Reject("parcels.0.weight_amount", "over 31.5 kg"))
			}
		}, problems: []domain.Problem{{Field: "parcels.0.weight_amount", Message: "over 31.5 kg"}}, wantCalls: []string{"create"}},
		{name: "carrier unavailable", setup: func(f *fixture) {
			f.carrier.onCreate = func(context.Context, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				return carrier.CreatedShipment{}, unavailable("503")
			}
		}, retried: true, wantCalls: []string{"create"}},
		{name: "carrier unavailable, giving up", setup: func(f *fixture) {
			f.carrier.onCreate = func(context.Context, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				return carrier.CreatedShipment{}, unavailable("503")
			}
		}, giveUp: true, problems: []domain.Problem{{Message: "gave up after repeated attempts (carrier unavailable: 503)"}}, wantCalls: []string{"create"}},
		{name: "carrier hangs", setup: func(f *fixture) {
			f.carrier.onCreate = func(ctx context.Context, _ carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				<-ctx.Done()
				return carrier.CreatedShipment{}, unavailable(ctx.Err().Error())
			}
		}, retried: true, wantCalls: []string{"create"}},
		{name: "labels unavailable", setup: func(f *fixture) {
			f.carrier.onCreate = func(_ context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				return bookedAnswer(req, false), nil
			}
			f.carrier.onLabels = func(context.Context, carrier.ShipmentRef, string) ([]carrier.Label, error) {
				return nil, unavailable("label service down")
			}
		}, retried: true, wantCalls: []string{"create", "labels"}},
		{name: "labels do not merge", setup: func(f *fixture) { f.labels.fail(errors.New("not a pdf")) }, retried: true, wantCalls: []string{"create"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, request("sh_1", 1))
			tc.setup(f)
			f.clock.Advance(time.Minute)
			err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1", GiveUp: tc.giveUp})
			st := f.state(t, "sh_1")
			if calls := f.carrier.Calls(); !slices.Equal(calls, tc.wantCalls) {
				t.Errorf("carrier calls %v, want %v", calls, tc.wantCalls)
			}
			if tc.retried {
				if !errors.Is(err, command.ErrCarrierUnavailable) || !fault.Is(err, fault.KindUnavailable) {
					t.Errorf("error %v, want ErrCarrierUnavailable and a fault unavailable", err)
				}
				if !st.CreatedAt.Equal(st.UpdatedAt) || st.Version != 1 || st.IsSuccessful != nil {
					t.Errorf("a booking to retry changed the shipment: %+v", st)
				}
				if got := f.events(t, 1); len(got) != 0 {
					t.Errorf("a booking to retry published %v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v, want the shipment rejected", err)
			}
			if st.Status != domain.StatusPending || st.IsSuccessful == nil || *st.IsSuccessful || st.Version != 2 ||
				!st.UpdatedAt.Equal(f.clock.Now()) || st.HasLabel || len(st.Errors) != len(tc.problems) {
				t.Fatalf("rejected %+v, want problems %v", st, tc.problems)
			}
			for i, p := range st.Errors {
				if p.Field != tc.problems[i].Field || !strings.Contains(p.Message, tc.problems[i].Message) {
					t.Errorf("problem %d: %+v, want %+v", i, p, tc.problems[i])
				}
			}
			if got := f.events(t, 1); !slices.Equal(got, []string{"shipment.updated v2 pending"}) {
				t.Errorf("events %v", got)
			}
			if snap := f.lastSnapshot(t); snap.IsSuccessful == nil || *snap.IsSuccessful || len(snap.Errors) != len(tc.problems) {
				t.Errorf("snapshot %+v", snap)
			}
		})
	}
}

// A carrier that hangs is given up on after the carrier timeout, through
// the context of its call.
func TestBookBoundsTheCarrierCall(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 1))
	var left time.Duration
	f.carrier.onCreate = func(ctx context.Context, _ carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		deadline, ok := ctx.Deadline()
		if !ok {
			return carrier.CreatedShipment{}, errors.New("no deadline")
		}
		left = time.Until(deadline)
		<-ctx.Done()
		return carrier.CreatedShipment{}, unavailable(ctx.Err().Error())
	}
	start := time.Now()
	err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"})
	if !errors.Is(err, command.ErrCarrierUnavailable) || left <= 0 || left > carrierTimeout {
		t.Errorf("error %v with %v left of the call; want ErrCarrierUnavailable within %v", err, left, carrierTimeout)
	}
	if took := time.Since(start); took > 20*carrierTimeout {
		t.Errorf("the booking took %v", took)
	}
}

// Nothing is booked twice: a shipment deleted, rejected or booked already
// is left alone, and the carrier is not asked.
func TestBookLeavesDecidedShipmentsAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*testing.T, *fixture)
	}{
		{"deleted", func(*testing.T, *fixture) {}},
		{"booked", func(t *testing.T, f *fixture) { f.booked(t, "sh_1", 1) }},
		{"rejected", func(t *testing.T, f *fixture) {
			f.created(t, request("sh_1", 1))
			f.channels.Remove("ch_1")
			if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
				t.Fatal(err)
			}
			f.channels.Put(activeChannel())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			tc.setup(t, f)
			calls, published := len(f.carrier.Calls()), len(f.repo.Published())
			if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1", GiveUp: true}); err != nil {
				t.Fatal(err)
			}
			if got := f.carrier.Calls()[calls:]; len(got) != 0 {
				t.Errorf("the carrier was asked again: %v", got)
			}
			if got := f.events(t, published); len(got) != 0 {
				t.Errorf("published %v", got)
			}
		})
	}
}

// An answer that comes after the shipment was decided otherwise (another
// instance's booking, a rejection) is dropped: the first decision stands.
func TestBookDropsAnAnswerThatCameTooLate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer func(carrier.ShipmentRequest) (carrier.CreatedShipment, error)
	}{
		{"booked", func(req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
			return bookedAnswer(req, true), nil
		}},
		{"refused", func(carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
			return carrier.CreatedShipment{}, carrier.Reject("", "refused here")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, request("sh_1", 1))
			f.carrier.onCreate = func(ctx context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				// Meanwhile, another instance's attempt is rejected.
				_, err := f.repo.Update(ctx, "sh_1", func(sh *domain.Shipment) ([]domain.Event, error) {
					sh.Rejected([]domain.Problem{{Message: "elsewhere"}}, t0)
					return []domain.Event{marker{}}, nil
				})
				if err != nil {
					return carrier.CreatedShipment{}, err
				}
				return tc.answer(req)
			}
			if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
				t.Fatal(err)
			}
			st := f.state(t, "sh_1")
			if st.Status != domain.StatusPending || len(st.Errors) != 1 || st.Errors[0].Message != "elsewhere" || st.HasLabel {
				t.Errorf("the late answer overwrote the decision: %+v", st)
			}
			if got := f.repo.Published(); len(got) != 2 {
				t.Errorf("published %v, want the request and the other decision only", got)
			}
			if l, _ := f.repo.Label(t.Context(), "sh_1"); l != nil {
				t.Errorf("the late answer's label was stored")
			}
		})
	}
}

// marker is an event only tests publish.
type marker struct{}

func (marker) EventType() string   { return "test.marker" }
func (marker) EventStream() string { return "test" }

// A shipment deleted while the carrier refused it has nothing left to
// reject.
func TestBookRejectsNothingOnceDeleted(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 1))
	f.carrier.onCreate = func(ctx context.Context, _ carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		err := f.repo.Delete(ctx, "sh_1", func(*domain.Shipment) ([]domain.Event, error) { return nil, nil })
		return carrier.CreatedShipment{}, errors.Join(err, carrier.Reject("", "no"))
	}
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	if got := f.events(t, 1); len(got) != 0 {
		t.Errorf("published %v", got)
	}
}

// The store's and the channels facade's own failures are returned as they
// are, for the worker to log and retry: they are not the carrier's.
func TestBookReturnsFailuresThatAreNotTheCarriers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*fixture)
	}{
		{"reading the shipment", func(f *fixture) {
			f.repo.Interfere(failOn("Get"))
		}},
		{"asking for the channel", func(f *fixture) { f.channels.Fail("ch_1", errDatabase) }},
		{"recording the rejection", func(f *fixture) {
			f.channels.Remove("ch_1")
			f.repo.Interfere(failOn("Update"))
		}},
		{"recording the booking", func(f *fixture) {
			f.repo.Interfere(failOn("Update"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, request("sh_1", 1))
			tc.setup(f)
			err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1", GiveUp: true})
			if !errors.Is(err, errDatabase) || errors.Is(err, command.ErrCarrierUnavailable) {
				t.Errorf("error %v, want the failure itself", err)
			}
			f.repo.Interfere(nil)
			if st := f.state(t, "sh_1"); st.Version != 1 || st.IsSuccessful != nil {
				t.Errorf("shipment changed: %+v", st)
			}
		})
	}
}
