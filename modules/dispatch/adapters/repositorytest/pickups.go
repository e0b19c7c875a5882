package repositorytest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"
)

var pickupCases = []contracttest.Case[Subject]{
	{Name: "PickupAddedIsReadBackAsStored", Test: pickupAddedIsReadBackAsStored},
	{Name: "PickupMissingIsNotFound", Test: pickupMissingIsNotFound},
	{Name: "PickupTakenIdIsAnErrorNoFault", Test: pickupTakenIdIsAnErrorNoFault},
	{Name: "AShipmentIsOnOneActivePickup", Test: aShipmentIsOnOneActivePickup},
	{Name: "AChannelHasOneActivePickupADate", Test: aChannelHasOneActivePickupADate},
	{Name: "PickupUpdateSavesAChangeWithEvents", Test: pickupUpdateSavesAChangeWithEvents},
	{Name: "AFailedPickupUpdateSavesNothing", Test: aFailedPickupUpdateSavesNothing},
	{Name: "RecordSavesWithoutAnEvent", Test: recordSavesWithoutAnEvent},
	{Name: "ForgetRemovesAnOrderOnly", Test: forgetRemovesAnOrderOnly},
	{Name: "StalePickupsAreOrdersSinceBefore", Test: stalePickupsAreOrdersSinceBefore},
	{Name: "ConcurrentPickupChangesAreSerial", Test: concurrentPickupChangesAreSerial},
}

// What Add stored is what Get reads, every field, of a pickup of shipments
// and of one of a count (no shipments: nil); Add publishes nothing (the
// pickup is only being ordered).
func pickupAddedIsReadBackAsStored(t *testing.T, s Subject) {
	ch := ids.New(ids.ShippingChannel)
	a, b := Shipment(account, ch, t0), Shipment(account, ch, t0)
	for _, p := range []*pickup.Pickup{
		newPickup(t, ids.New(ids.Pickup), ch, tuesday, t0, a, b),
		newPickup(t, ids.New(ids.Pickup), ch, wednesday, t0),
	} {
		want := p.Stored()
		if err := s.Pickups.Add(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if got := getPickup(t, s, want.ID); !reflect.DeepEqual(got, want) {
			t.Errorf("read back\n%+v\nwant\n%+v", got, want)
		}
	}
	if got := getPickup(t, s, addPickup(t, s, ch, thursday).ID()); got.ShipmentIDs != nil || got.Status != pickup.StatusOrdering {
		t.Errorf("a pickup of a count: shipments %#v, status %s", got.ShipmentIDs, got.Status)
	}
	wantNames(t, s)
}

// A pickup that is not there is fault.NotFound to Get, Update and Record,
// and fn is never called; Forget has nothing to do, and nothing is
// written.
func pickupMissingIsNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	called := false
	missing := ids.New(ids.Pickup)
	errs := map[string]error{
		"Get": func() error { _, err := s.Pickups.Get(ctx, missing); return err }(),
		"Update": func() error {
			_, err := s.Pickups.Update(ctx, missing, func(*pickup.Pickup) ([]domain.Event, error) { called = true; return nil, nil })
			return err
		}(),
		"Record": s.Pickups.Record(ctx, missing, func(*pickup.Pickup) error { called = true; return nil }),
	}
	contracttest.WantNotFound(t, "a missing pickup", errs, called)
	if err := s.Pickups.Forget(ctx, missing); err != nil {
		t.Errorf("forgetting a missing pickup: %v", err)
	}
	wantNames(t, s)
}

// An id that is taken is the primary key's violation: an error, not a
// fault a client could be shown; the first pickup stays as it was.
func pickupTakenIdIsAnErrorNoFault(t *testing.T, s Subject) {
	ch := ids.New(ids.ShippingChannel)
	p := addPickup(t, s, ch, tuesday)
	err := s.Pickups.Add(t.Context(), newPickup(t, p.ID(), ids.New(ids.ShippingChannel), wednesday, t0.Add(time.Hour)))
	if _, isFault := fault.As(err); err == nil || isFault {
		t.Errorf("a taken id: %v, want an error that is no fault", err)
	}
	if got := getPickup(t, s, p.ID()); !reflect.DeepEqual(got, p.Stored()) {
		t.Errorf("the first pickup became %+v", got)
	}
}

// A shipment on an active pickup (being ordered, scheduled or unconfirmed)
// is refused to another, on its index, naming the pickup, and the refused
// pickup holds nothing; a cancelled pickup lets its shipments go.
func aShipmentIsOnOneActivePickup(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	a, b, c, d := Shipment(account, ch, t0), Shipment(account, ch, t0), Shipment(account, ch, t0), Shipment(account, ch, t0)
	first := addPickup(t, s, ch, tuesday, a, b)
	refused := newPickup(t, ids.New(ids.Pickup), ch, wednesday, t0, c, b, d, a)
	onFields(t, s.Pickups.Add(ctx, refused), map[string]string{
		"shipment_ids.1": "is on pickup " + first.ID() + " already (cancel that one first)",
		"shipment_ids.3": "is on pickup " + first.ID() + " already (cancel that one first)",
	})
	if _, err := s.Pickups.Get(ctx, refused.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a refused pickup was stored (%v)", err)
	}
	addPickup(t, s, ch, wednesday, c, d) // the refused pickup held neither
	update(t, s, first.ID(), confirmed(t0.Add(time.Minute)))
	if err := s.Pickups.Add(ctx, newPickup(t, ids.New(ids.Pickup), ch, thursday, t0, a)); err == nil {
		t.Error("a shipment of a scheduled pickup went on another")
	}
	update(t, s, first.ID(), cancelled(t0.Add(2*time.Minute)))
	addPickup(t, s, ch, thursday, a, b)

	other := ids.New(ids.ShippingChannel)
	e := Shipment(account, other, t0)
	unsure := addPickup(t, s, other, tuesday, e)
	update(t, s, unsure.ID(), unconfirmed(t0.Add(time.Minute)))
	if err := s.Pickups.Add(ctx, newPickup(t, ids.New(ids.Pickup), other, wednesday, t0, e)); err == nil {
		t.Error("a shipment of an unconfirmed pickup went on another")
	}
	wantNames(t, s, contract.EventPickupCreated, contract.EventPickupCancelled, contract.EventPickupUnconfirmed)
}

// A channel has one active pickup a date: a second is a fault on date
// naming the first; another channel, or another date, is free; a cancelled
// pickup lets its date go.
func aChannelHasOneActivePickupADate(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	first := addPickup(t, s, ch, tuesday)
	second := newPickup(t, ids.New(ids.Pickup), ch, tuesday, t0)
	onFields(t, s.Pickups.Add(ctx, second), map[string]string{
		"date": "the channel has a pickup on " + tuesday + " already (" + first.ID() + "); cancel it to order another",
	})
	if _, err := s.Pickups.Get(ctx, second.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a refused pickup was stored (%v)", err)
	}
	addPickup(t, s, ids.New(ids.ShippingChannel), tuesday)
	addPickup(t, s, ch, wednesday)
	update(t, s, first.ID(), unconfirmed(t0.Add(time.Minute)))
	if err := s.Pickups.Add(ctx, newPickup(t, ids.New(ids.Pickup), ch, tuesday, t0)); err == nil {
		t.Error("an unconfirmed pickup's date was taken again")
	}
	update(t, s, first.ID(), cancelled(t0.Add(2*time.Minute)))
	addPickup(t, s, ch, tuesday)
}

// Update hands fn the stored pickup, saves what it changed with the events
// it names, and returns the saved pickup.
func pickupUpdateSavesAChangeWithEvents(t *testing.T, s Subject) {
	ch := ids.New(ids.ShippingChannel)
	p := addPickup(t, s, ch, tuesday, Shipment(account, ch, t0))
	var seen pickup.Stored
	at := t0.Add(time.Minute)
	out, err := s.Pickups.Update(t.Context(), p.ID(), func(q *pickup.Pickup) ([]domain.Event, error) {
		seen = q.Stored()
		return confirmed(at)(q)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, p.Stored()) {
		t.Errorf("fn saw\n%+v\nwant\n%+v", seen, p.Stored())
	}
	got := getPickup(t, s, p.ID())
	if !reflect.DeepEqual(got, out.Stored()) {
		t.Errorf("read back\n%+v\nUpdate returned\n%+v", got, out.Stored())
	}
	if got.Status != pickup.StatusScheduled || got.Version != 2 || got.ConfirmationNumber != "C-"+p.ID() ||
		got.ConfirmedDate != tuesday || got.ConfirmedFrom != "09:30" || got.ConfirmedUntil != "11:30" ||
		got.CarrierHandle != "checksum-7" || !got.UpdatedAt.Equal(at) || !got.CreatedAt.Equal(t0) {
		t.Errorf("after the update: %+v", got)
	}
	msgs := s.Written(t)
	want := contract.PickupCreated{PickupEvent: pickupEvent(out, at)}
	if len(msgs) != 1 || msgs[0].Name != contract.EventPickupCreated || !outboxtest.SameJSON(t, msgs[0].Payload, want) {
		t.Errorf("written %s, want %+v", msgs, want)
	}
	cancelledAt := t0.Add(time.Hour)
	update(t, s, p.ID(), cancelled(cancelledAt))
	if got := getPickup(t, s, p.ID()); got.Status != pickup.StatusCancelled || got.CancelledAt == nil ||
		!got.CancelledAt.Equal(cancelledAt) || got.Version != 3 {
		t.Errorf("after the cancel: %+v", got)
	}
	wantNames(t, s, contract.EventPickupCreated, contract.EventPickupCancelled)
}

// When fn fails, its error is Update's and nothing is saved or written,
// whatever fn changed or named.
func aFailedPickupUpdateSavesNothing(t *testing.T, s Subject) {
	p := addPickup(t, s, ids.New(ids.ShippingChannel), tuesday)
	refuse := errors.New("refused")
	if _, err := s.Pickups.Update(t.Context(), p.ID(), func(q *pickup.Pickup) ([]domain.Event, error) {
		events, _ := confirmed(t0.Add(time.Minute))(q)
		return events, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v, want fn's", err)
	}
	if got := getPickup(t, s, p.ID()); !reflect.DeepEqual(got, p.Stored()) {
		t.Errorf("a failed update was saved: %+v", got)
	}
	wantNames(t, s)
}

// Record saves what fn changed (the handle an order was accepted under)
// and writes no event; when fn fails, nothing is saved.
func recordSavesWithoutAnEvent(t *testing.T, s Subject) {
	ctx := t.Context()
	p := addPickup(t, s, ids.New(ids.ShippingChannel), tuesday)
	at := t0.Add(time.Minute)
	if err := s.Pickups.Record(ctx, p.ID(), func(q *pickup.Pickup) error { return q.Accepted("order-42", at) }); err != nil {
		t.Fatal(err)
	}
	got := getPickup(t, s, p.ID())
	if got.OrderHandle != "order-42" || !got.UpdatedAt.Equal(at) || got.Status != pickup.StatusOrdering || got.Version != 1 {
		t.Errorf("after the record: %+v", got)
	}
	refuse := errors.New("refused")
	if err := s.Pickups.Record(ctx, p.ID(), func(q *pickup.Pickup) error {
		_ = q.Accepted("order-43", at.Add(time.Minute))
		return refuse
	}); !errors.Is(err, refuse) {
		t.Errorf("error %v, want fn's", err)
	}
	if again := getPickup(t, s, p.ID()); !reflect.DeepEqual(again, got) {
		t.Errorf("a failed record was saved: %+v", again)
	}
	wantNames(t, s)
}

// Forget removes a pickup being ordered, with its hold on its shipments and
// its date; a pickup in any other status stays whole, holding both.
func forgetRemovesAnOrderOnly(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	a := Shipment(account, ch, t0)
	ordering := addPickup(t, s, ch, tuesday, a)
	if err := s.Pickups.Forget(ctx, ordering.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pickups.Get(ctx, ordering.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a forgotten pickup: %v", err)
	}
	addPickup(t, s, ch, tuesday, a) // its date and shipment are free

	for i, fn := range []func(p *pickup.Pickup) ([]domain.Event, error){confirmed(t0.Add(time.Minute)), unconfirmed(t0.Add(time.Minute))} {
		date := []string{wednesday, thursday}[i]
		sh := Shipment(account, ch, t0)
		kept := update(t, s, addPickup(t, s, ch, date, sh).ID(), fn)
		if err := s.Pickups.Forget(ctx, kept.ID()); err != nil {
			t.Fatal(err)
		}
		if got := getPickup(t, s, kept.ID()); !reflect.DeepEqual(got, kept.Stored()) {
			t.Errorf("a %s pickup forgotten: %+v", kept.Status(), got)
		}
		free := []string{"2026-12-07", "2026-12-08"}[i]
		err := s.Pickups.Add(ctx, newPickup(t, ids.New(ids.Pickup), ch, free, t0, sh, Shipment(account, ch, t0)))
		onFields(t, err, map[string]string{"shipment_ids.0": "is on pickup " + kept.ID() + " already (cancel that one first)"})
		if err := s.Pickups.Add(ctx, newPickup(t, ids.New(ids.Pickup), ch, date, t0)); !fault.Is(err, fault.KindValidation) {
			t.Errorf("the date of a %s pickup forgotten: %v", kept.Status(), err)
		}
	}
}

// Stale are the pickups being ordered last changed before the time given,
// the longest waiting first, at most the limit; scheduled, unconfirmed and
// recent ones are not.
func stalePickupsAreOrdersSinceBefore(t *testing.T, s Subject) {
	ctx := t.Context()
	var waiting []string
	for i := range 3 {
		p := newPickup(t, ids.New(ids.Pickup), ids.New(ids.ShippingChannel), tuesday, t0.Add(time.Duration(2-i)*time.Minute))
		if err := s.Pickups.Add(ctx, p); err != nil {
			t.Fatal(err)
		}
		waiting = append([]string{p.ID()}, waiting...)
	}
	update(t, s, addPickup(t, s, ids.New(ids.ShippingChannel), tuesday).ID(), confirmed(t0))
	update(t, s, addPickup(t, s, ids.New(ids.ShippingChannel), tuesday).ID(), unconfirmed(t0))
	recent := newPickup(t, ids.New(ids.Pickup), ids.New(ids.ShippingChannel), tuesday, t0.Add(time.Hour))
	if err := s.Pickups.Add(ctx, recent); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		before time.Time
		limit  int
		want   []string
	}{
		{t0.Add(time.Hour), 10, waiting},
		{t0.Add(time.Hour), 2, waiting[:2]},
		{t0.Add(2 * time.Minute), 10, waiting[:2]},
		{t0, 10, nil},
	} {
		got, err := s.Pickups.Stale(ctx, tc.before, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("stale before %s, at most %d: %v, want %v", tc.before.Format(time.TimeOnly), tc.limit, got, tc.want)
		}
	}
	// An accepted order is changed when its handle is recorded: it waits
	// from then on.
	if err := s.Pickups.Record(ctx, waiting[0], func(p *pickup.Pickup) error { return p.Accepted("h", t0.Add(2*time.Hour)) }); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Pickups.Stale(ctx, t0.Add(time.Hour), 10); err != nil || !slices.Equal(got, waiting[1:]) {
		t.Errorf("stale after a handle was recorded: %v (%v), want %v", got, err, waiting[1:])
	}
}

// Updates and records of one pickup at the same time are applied one after
// the other: each fn sees what the one before saved, and none is lost.
func concurrentPickupChangesAreSerial(t *testing.T, s Subject) {
	p := addPickup(t, s, ids.New(ids.ShippingChannel), tuesday)
	const n = 8
	var calls atomic.Int32
	grow := func(q *pickup.Pickup) error { return q.Accepted(q.OrderHandle()+"x", t0) }
	contracttest.Concurrently(t, n, func(ctx context.Context) error {
		if calls.Add(1)%2 == 0 {
			return s.Pickups.Record(ctx, p.ID(), grow)
		}
		_, err := s.Pickups.Update(ctx, p.ID(), func(q *pickup.Pickup) ([]domain.Event, error) { return nil, grow(q) })
		return err
	})
	if got := getPickup(t, s, p.ID()).OrderHandle; got != strings.Repeat("x", n) {
		t.Errorf("handle %q after %d changes: some were lost", got, n)
	}
}
