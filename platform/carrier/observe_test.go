package carrier_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/txguard"
)

type infoOnly struct{ err error }

func (p infoOnly) Info() carrier.ProviderInfo { return carrier.ProviderInfo{Code: "x"} }
func (p infoOnly) ValidateCredentials(context.Context, carrier.Settings) error {
	return p.err
}

type tracker struct{ infoOnly }

func (tracker) Track(context.Context, carrier.Settings, carrier.TrackingRequest) (carrier.Tracking, error) {
	return carrier.Tracking{}, fmt.Errorf("down: %w", carrier.ErrUnavailable)
}
func (tracker) TimeScale() float64 { return 60 }

type shipper struct{ infoOnly }

func (shipper) CreateShipment(context.Context, carrier.Settings, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	return carrier.CreatedShipment{}, carrier.RejectionOf([]*carrier.Rejection{carrier.Reject("a", "no"), carrier.Reject("b", "no")})
}
func (shipper) Labels(context.Context, carrier.Settings, carrier.ShipmentRef, string) ([]carrier.Label, error) {
	return nil, nil
}
func (shipper) CancelShipment(context.Context, carrier.Settings, carrier.ShipmentRef) error {
	return carrier.Reject("", "too late")
}

type both struct{ shipper }

type finder struct{ shipper }

func (finder) FindBooking(context.Context, carrier.Settings, carrier.ShipmentRequest) (string, bool, error) {
	return "H-1", true, nil
}

type findsAndTracks struct{ both }

func (findsAndTracks) FindBooking(context.Context, carrier.Settings, carrier.ShipmentRequest) (string, bool, error) {
	return "", false, nil
}

func (both) Track(context.Context, carrier.Settings, carrier.TrackingRequest) (carrier.Tracking, error) {
	return carrier.Tracking{}, nil
}

// An observed provider can do exactly what the provider can (the modules
// ask by type assertion), and each call is told with its outcome.
func TestObserveKeepsWhatTheProviderCanDo(t *testing.T) {
	type call struct{ provider, operation, outcome string }
	var calls []call
	observe := func(provider, operation string, _ time.Duration, outcome string) {
		calls = append(calls, call{provider, operation, outcome})
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name                 string
		p                    carrier.Provider
		ships, tracks, finds bool
	}{
		{"info only", infoOnly{}, false, false, false},
		{"tracker", tracker{}, false, true, false},
		{"shipper", shipper{}, true, false, false},
		{"both", both{}, true, true, false},
		{"finder", finder{}, true, false, true},
		{"finder and tracker", findsAndTracks{}, true, true, true},
	} {
		o := carrier.Observe(tc.p, observe)
		_, ships := o.(carrier.Shipper)
		_, tracks := o.(carrier.Tracker)
		_, finds := o.(carrier.BookingFinder)
		if ships != tc.ships || tracks != tc.tracks || finds != tc.finds {
			t.Errorf("%s: ships %v tracks %v finds %v, want %v %v %v", tc.name, ships, tracks, finds, tc.ships, tc.tracks, tc.finds)
		}
		if scaled, ok := o.(carrier.TimeScaled); !ok {
			t.Errorf("%s: TimeScale not passed through", tc.name)
		} else if want := map[bool]float64{true: 60, false: 0}[tc.name == "tracker"]; scaled.TimeScale() != want {
			t.Errorf("%s: TimeScale %v, want %v", tc.name, scaled.TimeScale(), want)
		}
	}

	calls = nil
	_ = carrier.Observe(infoOnly{err: errors.New("boom")}, observe).ValidateCredentials(ctx, nil)
	_, _ = carrier.Observe(tracker{}, observe).(carrier.Tracker).Track(ctx, nil, carrier.TrackingRequest{})
	s := carrier.Observe(shipper{}, observe).(carrier.Shipper)
	_, err := s.CreateShipment(ctx, nil, carrier.ShipmentRequest{})
	var several carrier.Rejections
	if !errors.As(err, &several) {
		t.Errorf("the rejection was not passed through unchanged: %v", err)
	}
	_ = s.CancelShipment(ctx, nil, carrier.ShipmentRef{})
	_, _ = s.Labels(ctx, nil, carrier.ShipmentRef{}, "pdf")
	want := []call{
		{"x", "validate_credentials", "error"},
		{"x", "track", "unavailable"},
		{"x", "create_shipment", "rejected"},
		{"x", "cancel_shipment", "rejected"},
		{"x", "labels", "ok"},
	}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
}

// calling counts the calls that reached the provider.
type calling struct {
	both
	n *int
}

func (c calling) ValidateCredentials(context.Context, carrier.Settings) error { *c.n++; return nil }
func (c calling) CreateShipment(context.Context, carrier.Settings, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	*c.n++
	return carrier.CreatedShipment{}, nil
}
func (c calling) Labels(context.Context, carrier.Settings, carrier.ShipmentRef, string) ([]carrier.Label, error) {
	*c.n++
	return nil, nil
}
func (c calling) CancelShipment(context.Context, carrier.Settings, carrier.ShipmentRef) error {
	*c.n++
	return nil
}
func (c calling) Track(context.Context, carrier.Settings, carrier.TrackingRequest) (carrier.Tracking, error) {
	*c.n++
	return carrier.Tracking{}, nil
}

// Every call of an observed provider is refused while a database
// transaction is open in its context, and goes through before it began or
// after it finished (ADR 0001).
func TestObserveRefusesCallsInsideATransaction(t *testing.T) {
	var reached int
	o := carrier.Observe(calling{n: &reached}, func(string, string, time.Duration, string) {})
	s, tr := o.(carrier.Shipper), o.(carrier.Tracker)
	ops := map[string]func(ctx context.Context){
		"validate_credentials": func(ctx context.Context) { _ = o.ValidateCredentials(ctx, nil) },
		"create_shipment":      func(ctx context.Context) { _, _ = s.CreateShipment(ctx, nil, carrier.ShipmentRequest{}) },
		"labels":               func(ctx context.Context) { _, _ = s.Labels(ctx, nil, carrier.ShipmentRef{}, "pdf") },
		"cancel_shipment":      func(ctx context.Context) { _ = s.CancelShipment(ctx, nil, carrier.ShipmentRef{}) },
		"track":                func(ctx context.Context) { _, _ = tr.Track(ctx, nil, carrier.TrackingRequest{}) },
	}
	var open atomic.Bool
	ctx := txguard.Hold(context.Background(), "the test's transaction", open.Load)
	for name, call := range ops {
		reached = 0
		if err := txguard.Refusal(func() { call(ctx) }); err != nil || reached != 1 {
			t.Errorf("%s before the transaction began: refused %v, reached %d", name, err, reached)
		}
		open.Store(true)
		err := txguard.Refusal(func() { call(ctx) })
		if !errors.Is(err, txguard.ErrInTransaction) || !strings.Contains(err.Error(), "carrier x "+name) {
			t.Errorf("%s inside: %v, want a refusal naming the call", name, err)
		}
		open.Store(false)
		if err := txguard.Refusal(func() { call(ctx) }); err != nil || reached != 2 {
			t.Errorf("%s after it finished: refused %v, reached %d (want 2: the refused call never reached it)", name, err, reached)
		}
	}
}
