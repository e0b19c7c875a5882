package command_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

// A request's own problems are answered before its channel is looked up
// (ADR 0036): a bad order through another account's channel is a field's
// fault, not forbidden, and neither the channels module nor the carrier
// is asked.
func TestOrderPickupAnswersTheRequestsProblemsFirst(t *testing.T) {
	t.Parallel()
	f := newFixture()
	ch := activeChannel()
	ch.AccountID = stranger
	f.channels.Put(ch)
	cmd := orderOf("pck_1", "2026-11-27")
	cmd.Request.ReadyFrom, cmd.Request.ShipmentIDs = "12:30", []string{"sh_1"}
	faulttest.WantFields(t, f.order.Handle(t.Context(), cmd), map[string]string{
		"date":           "must not be in the past (today is 2026-11-29)",
		"ready_until":    "must be later than ready_from",
		"shipment_ids.0": "must be a shipment id (sh_...)",
	})
	if f.channels.Asked() != 0 || f.carrier.calls() != [5]int{} {
		t.Errorf("asked the channels module %d times, the carrier %v", f.channels.Asked(), f.carrier.calls())
	}
	f.gone(t, "pck_1")
}

// A pickup is ordered only through an active channel of the account whose
// carrier takes pickups; otherwise nothing is stored, published or asked
// of the carrier.
func TestOrderPickupChecksTheChannel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(f *fixture)
		field map[string]string
		kind  fault.Kind // when not a field's fault
	}{
		{name: "channel not found", setup: func(f *fixture) { f.channels.Remove(channelID) },
			field: map[string]string{"shipping_channel_id": "does not name a shipping channel of this account"}},
		{name: "channel inactive", setup: func(f *fixture) {
			channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Status = "invalid" })(f.channels)
		}, field: map[string]string{"shipping_channel_id": "must be an active shipping channel (this one is invalid; validate it first)"}},
		{name: "another account's channel", setup: func(f *fixture) {
			channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.AccountID = stranger })(f.channels)
		}, kind: fault.KindForbidden},
		{name: "channels unavailable", setup: func(f *fixture) { f.channels.Fail(channelID, fault.Unavailable("channels is down")) },
			kind: fault.KindUnavailable},
		{name: "provider no longer offered", setup: func(f *fixture) {
			channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Provider = "gone" })(f.channels)
		}, field: map[string]string{"shipping_channel_id": "uses provider gone, which is no longer offered"}},
		{name: "a provider without pickups", setup: func(f *fixture) {
			channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Provider = shipperCode })(f.channels)
		}, field: map[string]string{"shipping_channel_id": "uses provider shiponly, which takes no courier pickups through its API: order pickups in the carrier's portal"}},
		{name: "a dispatcher without pickups", setup: func(f *fixture) {
			f.carrier.set(func(d *carrier.DispatchInfo) { d.Pickups, d.Note = false, "pickups are booked by phone" })
		}, field: map[string]string{"shipping_channel_id": "uses provider fakedispatch, which takes no courier pickups through its API: pickups are booked by phone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(1)
			tc.setup(f)
			err := f.order.Handle(t.Context(), orderOf("pck_1", tuesday))
			if tc.field != nil {
				faulttest.WantFields(t, err, tc.field)
			} else {
				faulttest.WantKind(t, err, tc.kind)
			}
			f.gone(t, "pck_1")
			if calls := f.carrier.calls(); calls != [5]int{} {
				t.Errorf("the carrier was asked %v", calls)
			}
			f.wantEvents(t, 0)
		})
	}
}

// Each shipment named must be a created one of the account's channel that
// no other active pickup holds; each other one is refused on its index, and
// the carrier takes no order.
func TestOrderPickupRefusesShipmentsItCannotCollect(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(5)
	theirs, elsewhere, cancelled := shipments[1], shipments[2], shipments[3]
	theirs.AccountID, elsewhere.ChannelID, cancelled.Status = stranger, "ch_2", "cancelled"
	f.shipments.Put(theirs, elsewhere, cancelled)
	unknown := shipments[4]
	f.shipments.Delete(unknown.ID)
	faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_1", tuesday, shipments...)), map[string]string{
		"shipment_ids.1": "is a shipment of another account",
		"shipment_ids.2": "is a shipment of another shipping channel (ch_2)",
		"shipment_ids.3": "is cancelled",
		"shipment_ids.4": "does not name a shipment this module knows",
	})
	f.gone(t, "pck_1")

	first := f.ordered(t, orderOf("pck_2", tuesday, shipments[0]))
	more := f.created(1)
	faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_3", wednesday, more[0], shipments[0])),
		map[string]string{"shipment_ids.1": "is on pickup " + first.ID + " already (cancel that one first)"})
	f.gone(t, "pck_3")
	if orders, _, _, _, _ := f.carrier.asked(); len(orders) != 1 || orders[0].Booking.Key != "pck_2" {
		t.Errorf("the carrier took %d orders, want pck_2's alone", len(orders))
	}
}

// The window must lie within one the carrier offers on the date, or within
// shipd's defaults where the carrier does not say; a carrier that cannot
// say now leaves nothing ordered.
func TestOrderPickupRefusesAWindowNotOffered(t *testing.T) {
	t.Parallel()
	t.Run("outside the carrier's windows", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		sh := f.created(1)
		cmd := orderOf("pck_1", tuesday, sh...)
		cmd.Request.ReadyFrom, cmd.Request.ReadyUntil = "11:00", "13:00"
		faulttest.WantFields(t, f.order.Handle(t.Context(), cmd), map[string]string{"ready_from": "the window 11:00-13:00 is not one " +
			"the carrier offers on 2026-12-01: it must lie within 09:00-12:00 or 12:00-17:00"})
		faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_2", sunday, sh...)),
			map[string]string{"date": "the carrier collects on no window on 2026-12-06 (a Sunday)"})
		_, _, _, windows, _ := f.carrier.asked()
		if len(windows) != 2 || windows[0].Date != tuesday || windows[0].Address != sh[0].Origin ||
			!reflect.DeepEqual(windows[0].Shipments, []carrier.DispatchShipment{sh[0].Carried()}) {
			t.Errorf("windows asked %+v", windows)
		}
		if calls := f.carrier.calls(); calls[0] != 0 {
			t.Errorf("the carrier took %d orders", calls[0])
		}
		f.gone(t, "pck_1")
		f.gone(t, "pck_2")
	})
	t.Run("outside shipd's defaults", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.carrier.set(func(d *carrier.DispatchInfo) { d.PickupAvailability = carrier.AvailabilityDefaults })
		faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_1", saturday)),
			map[string]string{"date": "the carrier collects on no window on 2026-12-05 (a Saturday)"})
		cmd := orderOf("pck_2", tuesday)
		cmd.Request.ReadyFrom, cmd.Request.ReadyUntil = "07:30", "10:00"
		faulttest.WantFields(t, f.order.Handle(t.Context(), cmd),
			map[string]string{"ready_from": "it must lie within 08:00-18:00"})
		cmd = orderOf("pck_3", tuesday)
		cmd.Request.ReadyFrom, cmd.Request.ReadyUntil = "08:00", "18:00"
		f.ordered(t, cmd)
		if calls := f.carrier.calls(); calls[3] != 0 || calls[0] != 1 {
			t.Errorf("the carrier was asked %v, want one order and no windows", calls)
		}
	})
	t.Run("a carrier that does not say", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.carrier.program(func(c *fakeDispatcher) {
			c.onWindows = func(carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) { return nil, carrier.ErrNotOffered }
		})
		cmd := orderOf("pck_1", tuesday)
		cmd.Request.ReadyFrom, cmd.Request.ReadyUntil = "16:00", "18:00"
		if got := f.ordered(t, cmd); got.Status != pickup.StatusScheduled {
			t.Errorf("ordered within the defaults: %s", got.Status)
		}
	})
	t.Run("a carrier that cannot say now", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.carrier.program(func(c *fakeDispatcher) {
			c.onWindows = func(carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) { return nil, unavailable("502") }
		})
		err := f.order.Handle(t.Context(), orderOf("pck_1", tuesday))
		faulttest.WantKind(t, err, fault.KindUnavailable)
		if f, _ := fault.As(err); f.Message != "The carrier fakedispatch could not be reached; no window was read. Try again later." {
			t.Errorf("message %q", f.Message)
		}
		f.gone(t, "pck_1")
		if calls := f.carrier.calls(); calls[0] != 0 {
			t.Errorf("the carrier took %d orders", calls[0])
		}
	})
}

// A carrier that refuses the order leaves nothing (the pickup is
// forgotten, its shipments and date free) and is answered 422 with the
// fields it blamed; one that cannot be reached, or hangs past the timeout,
// leaves nothing and is answered 503.
func TestOrderPickupLeavesNothingWhenTheCarrierDoesNotTakeIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		answer  func(ctx context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error)
		check   func(t *testing.T, err error)
		message string
	}{
		{name: "refused", answer: func(context.Context, carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
			return carrier.CourierPickup{}, carrier.RejectionOf([]*carrier.Rejection{
				carrier.Reject(carrier.PickupFieldAddress, "the postal code is not served"), carrier.Reject("", "no courier on that day")})
		}, check: func(t *testing.T, err error) {
			faulttest.WantFields(t, err, map[string]string{"address": "the postal code is not served", "carrier": "no courier on that day"})
		}, message: "The carrier fakedispatch refused the pickup."},
		{name: "unreachable", answer: func(context.Context, carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
			return carrier.CourierPickup{}, unavailable("connection refused")
		}, check: func(t *testing.T, err error) { faulttest.WantKind(t, err, fault.KindUnavailable) },
			message: "The carrier fakedispatch could not be reached; no pickup was ordered. Try again later."},
		{name: "hanging", answer: func(ctx context.Context, _ carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
			<-ctx.Done() // the handler's timeout ends the call
			return carrier.CourierPickup{}, unavailable(ctx.Err().Error())
		}, check: func(t *testing.T, err error) { faulttest.WantKind(t, err, fault.KindUnavailable) },
			message: "The carrier fakedispatch could not be reached; no pickup was ordered. Try again later."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			sh := f.created(2)
			f.carrier.program(func(c *fakeDispatcher) { c.onOrder = tc.answer })
			err := f.order.Handle(t.Context(), orderOf("pck_1", tuesday, sh...))
			tc.check(t, err)
			if got, _ := fault.As(err); got == nil || got.Message != tc.message {
				t.Errorf("message %v, want %q", err, tc.message)
			}
			f.gone(t, "pck_1")
			f.wantEvents(t, 0)
			f.carrier.program(func(c *fakeDispatcher) { c.onOrder = nil })
			if got := f.ordered(t, orderOf("pck_2", tuesday, sh...)); got.Status != pickup.StatusScheduled {
				t.Errorf("ordered again: %s", got.Status)
			}
		})
	}
}

// A carrier that accepted the order under a handle and then could not be
// reached may hold it: the pickup stays being ordered with its handle
// (ResolvePickups resumes it), holding its shipments and date, and is
// answered 503 saying so. One that refuses after accepting leaves nothing;
// so does an acceptance whose handle could not be recorded.
func TestOrderPickupAcceptedByTheCarrier(t *testing.T) {
	t.Parallel()
	acceptThen := func(err error) func(ctx context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
		return func(ctx context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
			if aerr := req.Booking.Accept(ctx, "H-"+req.Booking.Key); aerr != nil {
				return carrier.CourierPickup{}, unavailable(aerr.Error())
			}
			return carrier.CourierPickup{}, err
		}
	}
	t.Run("then unreachable", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		sh := f.created(1)
		f.carrier.program(func(c *fakeDispatcher) { c.onOrder = acceptThen(unavailable("timeout")) })
		err := f.order.Handle(t.Context(), orderOf("pck_1", tuesday, sh...))
		faulttest.WantKind(t, err, fault.KindUnavailable)
		if got, _ := fault.As(err); !strings.Contains(got.Message, "took the order of pickup pck_1 and has not confirmed it yet") ||
			!strings.Contains(got.Message, "GET /v1/pickups/pck_1") {
			t.Errorf("message %q", got.Message)
		}
		if got := f.pickup(t, "pck_1"); got.Status != pickup.StatusOrdering || got.OrderHandle != "H-pck_1" || got.Version != 1 {
			t.Errorf("left %+v", got)
		}
		f.wantEvents(t, 0)
		faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_2", wednesday, sh...)),
			map[string]string{"shipment_ids.0": "is on pickup pck_1 already"})
		faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_3", tuesday)),
			map[string]string{"date": "the channel has a pickup on 2026-12-01 already (pck_1)"})
	})
	t.Run("then refused", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.carrier.program(func(c *fakeDispatcher) {
			c.onOrder = acceptThen(carrier.Reject(carrier.PickupFieldDate, "fully booked"))
		})
		f.created(1)
		faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_1", tuesday)), map[string]string{"date": "fully booked"})
		f.gone(t, "pck_1")
	})
	t.Run("the handle not recorded", func(t *testing.T) {
		t.Parallel()
		f := newFixture()
		f.created(1)
		f.carrier.program(func(c *fakeDispatcher) { c.onOrder = acceptThen(unavailable("timeout")) })
		f.pickups.Interfere(failOn("Record"))
		err := f.order.Handle(t.Context(), orderOf("pck_1", tuesday))
		faulttest.WantKind(t, err, fault.KindUnavailable)
		if got, _ := fault.As(err); strings.Contains(got.Message, "took the order") {
			t.Errorf("message %q, though no handle was kept", got.Message)
		}
		f.pickups.Interfere(nil)
		f.gone(t, "pck_1")
	})
}

// An order the carrier confirms is recorded scheduled with what it
// confirmed, and pickup.created says so; the carrier was asked once, under
// the pickup's id as its key, for the named shipments from the first one's
// origin and sender, with their parcels and weight, on the channel's
// settings.
func TestOrderPickupSchedulesIt(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(2)
	second := shipments[1]
	second.Sender.CompanyName, second.Origin.CityName = "Other sender", "Brno"
	f.shipments.Put(second)
	f.clock.Advance(time.Minute)
	f.carrier.program(func(c *fakeDispatcher) {
		c.onOrder = func(_ context.Context, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
			return carrier.CourierPickup{ConfirmationNumber: "FD-77", Date: req.Date, ReadyFrom: "09:30", ReadyUntil: "11:30", Handle: "k"}, nil
		}
	})
	got := f.ordered(t, orderOf("pck_1", tuesday, shipments[0], second))
	if got.Status != pickup.StatusScheduled || got.Version != 2 || got.ConfirmationNumber != "FD-77" || got.ConfirmedFrom != "09:30" ||
		got.ConfirmedUntil != "11:30" || got.ConfirmedDate != tuesday || got.CarrierHandle != "k" || got.AccountID != account ||
		got.Provider != fakeCode || got.ParcelCount != 4 || got.TotalWeightKG != 3.1 || got.Address != shipments[0].Origin ||
		got.Contact != shipments[0].Sender || !got.CreatedAt.Equal(clockStart.Add(time.Minute)) {
		t.Errorf("stored %+v", got)
	}
	f.wantEvents(t, 0, "pickup.created v2 scheduled pck_1")
	orders, resumes, _, _, _ := f.carrier.asked()
	if len(orders) != 1 || len(resumes) != 0 {
		t.Fatalf("the carrier took %d orders and %d resumes", len(orders), len(resumes))
	}
	req := orders[0]
	if req.Booking.Key != "pck_1" || req.Booking.Handle != "" || req.Booking.Accepted == nil {
		t.Errorf("booking %+v", req.Booking)
	}
	req.Booking = carrier.Booking{}
	want := carrier.CourierPickupRequest{Date: tuesday, ReadyFrom: "09:00", ReadyUntil: "12:00", Address: shipments[0].Origin,
		Contact: shipments[0].Sender, Shipments: []carrier.DispatchShipment{shipments[0].Carried(), second.Carried()},
		ParcelCount: 4, TotalWeightKG: 3.1, Note: "ring at gate B"}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("ordered\n%+v\nwant\n%+v", req, want)
	}
	f.carrier.program(func(c *fakeDispatcher) {
		for _, s := range c.settings {
			if s.String("apiKey") != "secret" {
				t.Errorf("the carrier was given settings %v", s)
			}
		}
	})
	faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_2", tuesday)),
		map[string]string{"date": "the channel has a pickup on 2026-12-01 already (pck_1); cancel it to order another"})
	if calls := f.carrier.calls(); calls[0] != 1 {
		t.Errorf("the carrier took %d orders", calls[0])
	}
}

// An order of a count defaults its address and contact to the channel's
// newest shipment; one given is used as given (its codes trimmed), and an
// order with neither a shipment nor a default is refused.
func TestOrderPickupDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture()
	faulttest.WantFields(t, f.order.Handle(t.Context(), orderOf("pck_1", tuesday)), map[string]string{
		"address": "is required: no shipment of this channel names an origin address to default to",
		"contact": "is required: no shipment of this channel names a sender to default to"})
	shipments := f.created(2)
	newest := shipments[1]
	newest.Origin.CityName = "Brno"
	f.shipments.Put(newest)
	got := f.ordered(t, orderOf("pck_1", tuesday))
	if got.Address != newest.Origin || got.Contact != newest.Sender || got.ParcelCount != 3 || got.TotalWeightKG != 4.5 {
		t.Errorf("defaults %+v %+v, counts %d %v", got.Address, got.Contact, got.ParcelCount, got.TotalWeightKG)
	}
	cmd := orderOf("pck_2", wednesday)
	given := carrier.Address{StreetName: "Nová", HouseNumber: "5", CityName: "Ostrava", PostalCode: " 70200 ", CountryCode: "cz"}
	cmd.Request.Address = &given
	got = f.ordered(t, cmd)
	if want := (carrier.Address{StreetName: "Nová", HouseNumber: "5", CityName: "Ostrava", PostalCode: "70200", CountryCode: "CZ"}); got.Address != want ||
		got.Contact != newest.Sender {
		t.Errorf("given address kept as %+v, contact %+v", got.Address, got.Contact)
	}
	if _, _, _, windows, _ := f.carrier.asked(); windows[len(windows)-1].Address.CityName != "Ostrava" {
		t.Errorf("the windows were asked at %+v", windows[len(windows)-1].Address)
	}
}

// A store that fails is the command's failure, before the carrier is
// asked; the copy of shipments that cannot be read likewise.
func TestOrderPickupStoreFailures(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(1)
	f.pickups.Interfere(failOn("Add"))
	if err := f.order.Handle(t.Context(), orderOf("pck_1", tuesday)); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
	f.pickups.Interfere(nil)
	f.shipments.Fail("Latest", errDatabase)
	if err := f.order.Handle(t.Context(), orderOf("pck_2", tuesday)); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the copy's", err)
	}
	f.shipments.Fail("Latest", nil)
	if calls := f.carrier.calls(); calls[0] != 0 {
		t.Errorf("the carrier took %d orders", calls[0])
	}
	f.gone(t, "pck_1")
	f.gone(t, "pck_2")
}
