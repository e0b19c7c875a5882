package pickup_test

import (
	"reflect"
	"testing"
	"time"

	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/ids"
)

var confirmation = carrier.CourierPickup{ConfirmationNumber: "C-1", Date: tuesday, ReadyFrom: "09:30", ReadyUntil: "11:30", Handle: "checksum-7"}

// in is a pickup of shipments, brought to status by the transitions that
// lead there.
func in(t *testing.T, status pickup.Status) *pickup.Pickup {
	t.Helper()
	r := request()
	r.ShipmentIDs = []string{ids.New(ids.Shipment)}
	p, err := pickup.New(r, context(r))
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	switch status {
	case pickup.StatusScheduled:
		err = p.Confirmed(confirmation, at)
	case pickup.StatusUnconfirmed:
		err = p.Unconfirmed(at)
	case pickup.StatusCancelled:
		err = p.Confirmed(confirmation, at)
		if err == nil {
			err = p.Cancel(takes, at)
		}
	}
	if err != nil || p.Status() != status {
		t.Fatalf("bringing a pickup to %s: %v (%s)", status, err, p.Status())
	}
	return p
}

// wantConflict fails t unless err is a conflict of code saying message.
func wantConflict(t *testing.T, what string, err error, code, message string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok || f.Kind != fault.KindConflict || f.Code != code || f.Message != message {
		t.Errorf("%s: %v, want the conflict %s %q", what, err, code, message)
	}
}

// The transitions of a pickup: ordering → scheduled | unconfirmed;
// unconfirmed → scheduled (a late confirmation); anything but cancelled →
// cancelled, as CancelProblem allows. Each other one is a conflict that
// changes nothing.
func TestStatusTransitions(t *testing.T) {
	later := t0.Add(time.Hour)
	type transition struct {
		name  string
		apply func(p *pickup.Pickup) error
	}
	accepted := transition{"Accepted", func(p *pickup.Pickup) error { return p.Accepted("order-1", later) }}
	confirmed := transition{"Confirmed", func(p *pickup.Pickup) error { return p.Confirmed(confirmation, later) }}
	unconfirmed := transition{"Unconfirmed", func(p *pickup.Pickup) error { return p.Unconfirmed(later) }}
	for _, tc := range []struct {
		from    pickup.Status
		allowed []transition
		refused []transition
	}{
		{pickup.StatusOrdering, []transition{accepted, confirmed, unconfirmed}, nil},
		{pickup.StatusUnconfirmed, []transition{confirmed}, []transition{accepted, unconfirmed}},
		{pickup.StatusScheduled, nil, []transition{accepted, confirmed, unconfirmed}},
		{pickup.StatusCancelled, nil, []transition{accepted, confirmed, unconfirmed}},
	} {
		for _, tr := range tc.allowed {
			if err := tr.apply(in(t, tc.from)); err != nil {
				t.Errorf("%s of a pickup %s: %v", tr.name, tc.from, err)
			}
		}
		for _, tr := range tc.refused {
			p := in(t, tc.from)
			before := p.Stored()
			wantConflict(t, tr.name+" of a pickup "+string(tc.from), tr.apply(p), "pickup_not_ordering",
				"The pickup is "+string(tc.from)+"; it is not being ordered.")
			if !reflect.DeepEqual(p.Stored(), before) {
				t.Errorf("a refused %s of a pickup %s changed it: %+v", tr.name, tc.from, p.Stored())
			}
		}
	}
}

// Accepted records the handle only (no version: it is no change a client
// sees); Confirmed schedules the pickup with what the carrier confirmed;
// Unconfirmed says the answer was lost.
func TestTransitionsRecordWhatHappened(t *testing.T) {
	later := t0.Add(time.Hour)
	p := in(t, pickup.StatusOrdering)
	if err := p.Accepted("order-1", later); err != nil {
		t.Fatal(err)
	}
	if s := p.Stored(); s.OrderHandle != "order-1" || p.OrderHandle() != "order-1" || s.Version != 1 || !s.UpdatedAt.Equal(later) ||
		s.Status != pickup.StatusOrdering {
		t.Errorf("accepted: %+v", s)
	}
	if err := p.Confirmed(confirmation, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	s := p.Stored()
	if s.Status != pickup.StatusScheduled || s.Version != 2 || s.ConfirmationNumber != "C-1" || s.ConfirmedDate != tuesday ||
		s.ConfirmedFrom != "09:30" || s.ConfirmedUntil != "11:30" || s.CarrierHandle != "checksum-7" ||
		!s.UpdatedAt.Equal(later.Add(time.Minute)) || s.OrderHandle != "order-1" {
		t.Errorf("confirmed: %+v", s)
	}
	if got := p.Ordered(); got != confirmation {
		t.Errorf("ordered as %+v, want %+v", got, confirmation)
	}
	u := in(t, pickup.StatusUnconfirmed)
	if s := u.Stored(); s.Version != 2 || s.ConfirmationNumber != "" || !s.UpdatedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("unconfirmed: %+v", s)
	}
	if err := u.Confirmed(carrier.CourierPickup{ConfirmationNumber: "C-2"}, later); err != nil || u.Status() != pickup.StatusScheduled ||
		u.Stored().ConfirmedFrom != "" || u.Stored().Version != 3 {
		t.Errorf("a late confirmation without a window: %v, %+v", err, u.Stored())
	}
}

// A cancel is refused with its reason: of a pickup cancelled already, of
// one being ordered, of a scheduled one whose carrier takes no cancel (the
// message names it and the confirmation number). An unconfirmed pickup is
// cancelled here alone, whatever the carrier takes; only a scheduled one's
// cancel goes to the carrier.
func TestCancel(t *testing.T) {
	noCancel := takes
	noCancel.PickupCancel = false
	for _, tc := range []struct {
		from          pickup.Status
		dispatch      carrier.DispatchInfo
		code, message string
		asksCarrier   bool
	}{
		{pickup.StatusOrdering, takes, "pickup_being_ordered",
			"The pickup is being ordered at the carrier now; cancel it once it is scheduled.", false},
		{pickup.StatusCancelled, takes, "pickup_cancelled", "The pickup is cancelled already.", false},
		{pickup.StatusScheduled, noCancel, "pickup_not_cancellable",
			"The carrier fake takes no pickup cancellation through its API; cancel it with the carrier (confirmation number C-1).", true},
		{pickup.StatusScheduled, takes, "", "", true},
		{pickup.StatusUnconfirmed, noCancel, "", "", false},
		{pickup.StatusUnconfirmed, takes, "", "", false},
	} {
		p := in(t, tc.from)
		before := p.Stored()
		what := "cancel of a pickup " + string(tc.from)
		if p.AsksCarrierToCancel() != tc.asksCarrier {
			t.Errorf("%s asks the carrier: %v", what, p.AsksCarrierToCancel())
		}
		at := t0.Add(2 * time.Hour)
		problem, err := p.CancelProblem(tc.dispatch), p.Cancel(tc.dispatch, at)
		if tc.code != "" {
			wantConflict(t, what, problem, tc.code, tc.message)
			wantConflict(t, what, err, tc.code, tc.message)
			if !reflect.DeepEqual(p.Stored(), before) {
				t.Errorf("a refused %s changed it: %+v", what, p.Stored())
			}
			continue
		}
		if problem != nil || err != nil {
			t.Errorf("%s: %v, %v", what, problem, err)
		}
		if s := p.Stored(); s.Status != pickup.StatusCancelled || s.CancelledAt == nil || !s.CancelledAt.Equal(at) ||
			s.Version != before.Version+1 || !s.UpdatedAt.Equal(at) || s.Status.Active() {
			t.Errorf("%s: %+v", what, s)
		}
	}
}

// A pickup is ordered at its carrier with what it says and the booking key
// of its id (the handle once it has one), and hands out copies of its
// state.
func TestOrderAndStoredCopies(t *testing.T) {
	p := in(t, pickup.StatusOrdering)
	s := p.Stored()
	shipments := []carrier.DispatchShipment{{ShipmentID: s.ShipmentIDs[0]}}
	req := p.Order(shipments)
	if req.Booking.Key != s.ID || req.Booking.Handle != "" || req.Booking.Accepted != nil {
		t.Errorf("booking %+v", req.Booking)
	}
	req.Booking = carrier.Booking{}
	want := carrier.CourierPickupRequest{Date: tuesday, ReadyFrom: "09:00", ReadyUntil: "12:00", Address: address, Contact: contact,
		Shipments: shipments, ParcelCount: 2, TotalWeightKG: 3.5, Note: "ring at gate B"}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("ordered as\n%+v\nwant\n%+v", req, want)
	}
	if err := p.Accepted("order-1", t0); err != nil {
		t.Fatal(err)
	}
	if got := p.Order(nil).Booking; got.Key != s.ID || got.Handle != "order-1" {
		t.Errorf("a resumed order's booking: %+v", got)
	}
	s.ShipmentIDs[0] = "changed"
	if p.Stored().ShipmentIDs[0] == "changed" {
		t.Error("a change of a copy of the state reached the pickup")
	}
	restored := pickup.Restore(p.Stored())
	if !reflect.DeepEqual(restored.Stored(), p.Stored()) {
		t.Errorf("restored as %+v", restored.Stored())
	}
	for s, want := range map[string]bool{"ordering": true, "scheduled": true, "unconfirmed": true, "cancelled": true, "": false, "Scheduled": false} {
		if pickup.ValidStatus(s) != want {
			t.Errorf("ValidStatus(%q) = %v", s, !want)
		}
	}
	for _, st := range []pickup.Status{pickup.StatusOrdering, pickup.StatusScheduled, pickup.StatusUnconfirmed} {
		if !st.Active() {
			t.Errorf("%s is not active", st)
		}
	}
}
