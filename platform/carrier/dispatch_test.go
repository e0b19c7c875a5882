package carrier_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/txguard"
)

// dispatching is a provider with pickups and manifests that counts the
// calls reaching it.
type dispatching struct {
	infoOnly
	reached *int
}

func (d dispatching) OrderCourierPickup(context.Context, carrier.Settings, carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	*d.reached++
	return carrier.CourierPickup{ConfirmationNumber: "C-1"}, nil
}
func (d dispatching) CancelCourierPickup(context.Context, carrier.Settings, carrier.CourierPickup) error {
	*d.reached++
	return carrier.Reject("", "too late")
}
func (d dispatching) CourierPickupWindows(context.Context, carrier.Settings, carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	*d.reached++
	return nil, carrier.ErrNotOffered
}
func (d dispatching) CreateManifest(context.Context, carrier.Settings, carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	*d.reached++
	return carrier.CarrierManifest{Reference: "P-1"}, nil
}

// An observed provider has pickups and manifests exactly when the provider
// has them; each call is observed under its operation's name with its
// outcome, and refused inside an open transaction like every other call.
func TestObservedProviderDispatchesWhenTheProviderDoes(t *testing.T) {
	if _, ok := carrier.DispatcherOf(carrier.Observe(shipper{}, func(string, string, time.Duration, string) {})); ok {
		t.Fatal("a provider without pickups and manifests got a dispatcher by being observed")
	}
	var reached int
	var seen []string
	o := carrier.Observe(dispatching{reached: &reached}, func(provider, op string, _ time.Duration, outcome string) {
		seen = append(seen, provider+" "+op+" "+outcome)
	})
	d, ok := carrier.DispatcherOf(o)
	if !ok {
		t.Fatal("the observed provider lost its dispatcher")
	}
	ops := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"order_pickup", func(ctx context.Context) error {
			p, err := d.OrderCourierPickup(ctx, nil, carrier.CourierPickupRequest{})
			if err == nil && p.ConfirmationNumber != "C-1" {
				t.Errorf("the confirmation got lost on the way: %+v", p)
			}
			return err
		}},
		{"cancel_pickup", func(ctx context.Context) error { return d.CancelCourierPickup(ctx, nil, carrier.CourierPickup{}) }},
		{"pickup_windows", func(ctx context.Context) error {
			_, err := d.CourierPickupWindows(ctx, nil, carrier.PickupWindowsRequest{})
			return err
		}},
		{"create_manifest", func(ctx context.Context) error {
			m, err := d.CreateManifest(ctx, nil, carrier.ManifestRequest{})
			if err == nil && m.Reference != "P-1" {
				t.Errorf("the manifest's reference got lost on the way: %+v", m)
			}
			return err
		}},
	}
	var open atomic.Bool
	ctx := txguard.Hold(context.Background(), "the test's transaction", open.Load)
	for _, op := range ops {
		reached, seen = 0, nil
		_ = op.call(ctx)
		if reached != 1 || len(seen) != 1 || !strings.HasPrefix(seen[0], "x "+op.name+" ") {
			t.Errorf("%s: reached %d, observed %q", op.name, reached, seen)
		}
		open.Store(true)
		err := txguard.Refusal(func() { _ = op.call(ctx) })
		if !errors.Is(err, txguard.ErrInTransaction) || reached != 1 {
			t.Errorf("%s inside a transaction: %v, reached %d", op.name, err, reached)
		}
		open.Store(false)
	}
	reached, seen = 0, nil
	_ = d.CancelCourierPickup(context.Background(), nil, carrier.CourierPickup{})
	if len(seen) != 1 || seen[0] != "x cancel_pickup rejected" {
		t.Errorf("a refused cancel was observed as %q", seen)
	}
}
