package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/platform/carrier"
	"shipd/platform/clock"
)

func pickupRequest(key, date, from, until string) carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{Date: date, ReadyFrom: from, ReadyUntil: until,
		Address:     carrier.Address{StreetName: "Main", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Contact:     carrier.Contact{CompanyName: "Acme", Phone: "+420123456789"},
		ParcelCount: 2, TotalWeightKG: 3, Booking: carrier.Booking{Key: key}}
}

var ok = carrier.Settings{"clientId": "c", "clientSecret": "s"}

// The sandbox offers its documented windows: two on a weekday, one on a
// Saturday, none on a Sunday.
func TestSandboxPickupWindows(t *testing.T) {
	c := sandbox.NewWithConfig(sandbox.Config{Clock: clock.NewManual(time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))})
	for date, want := range map[string]string{"2026-12-01": "09:00-12:00<08:00 12:00-17:00<11:00", "2026-12-05": "09:00-12:00<08:00", "2026-12-06": ""} {
		windows, err := c.CourierPickupWindows(context.Background(), ok, carrier.PickupWindowsRequest{Date: date})
		var got []string
		for _, w := range windows {
			got = append(got, w.From+"-"+w.Until+"<"+w.OrderBy)
		}
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%s: %q %v, want %q", date, got, err, want)
		}
	}
}

// An order is confirmed under a number of its key; ordered again under
// the key it is the same order, counted once; cancelled until its window
// starts, a second cancel answering that it is cancelled already.
func TestSandboxPickupOrderedOnceAndCancelled(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
	c := sandbox.NewWithConfig(sandbox.Config{Clock: clk})
	req := pickupRequest("pck_1", "2026-12-01", "12:30", "16:00")
	p, err := c.OrderCourierPickup(context.Background(), ok, req)
	if err != nil || !strings.HasPrefix(p.ConfirmationNumber, "SBC-20261201-") || p.ReadyFrom != "12:30" {
		t.Fatalf("order: %+v %v", p, err)
	}
	again, err := c.OrderCourierPickup(context.Background(), ok, req)
	if err != nil || again != p || c.PickupOrders() != 1 {
		t.Fatalf("ordered again under its key: %+v %v, %d orders (want the first, once)", again, err, c.PickupOrders())
	}
	other, _ := c.OrderCourierPickup(context.Background(), ok, pickupRequest("pck_2", "2026-12-01", "12:30", "16:00"))
	if other.ConfirmationNumber == p.ConfirmationNumber || c.PickupOrders() != 2 {
		t.Fatalf("another key got %q, %d orders", other.ConfirmationNumber, c.PickupOrders())
	}
	if err := c.CancelCourierPickup(context.Background(), ok, p); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if err := c.CancelCourierPickup(context.Background(), ok, p); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Fatalf("second cancel: %v", err)
	}
	clk.Set(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	if _, refused := carrier.RefusalsOf(c.CancelCourierPickup(context.Background(), ok, other)); !refused {
		t.Fatal("a cancel once the window began was not refused")
	}
}

// Each trigger and each window rule refuses as documented, naming the field.
func TestSandboxPickupRefusals(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	c := sandbox.NewWithConfig(sandbox.Config{Clock: clk})
	postal := pickupRequest("a", "2026-12-02", "09:00", "12:00")
	postal.Address.PostalCode = "99999"
	refused := pickupRequest("b", "2026-12-02", "09:00", "12:00")
	refused.Note = sandbox.NoteRefuse + " please"
	for name, tc := range map[string]struct {
		req   carrier.CourierPickupRequest
		field string
	}{
		"postal code 99999":    {postal, "address.postal_code"},
		"note REFUSE":          {refused, ""},
		"outside every window": {pickupRequest("c", "2026-12-02", "08:00", "12:00"), "ready_from"},
		"on a Sunday":          {pickupRequest("d", "2026-12-06", "09:00", "12:00"), "ready_from"},
		"past the order-by":    {pickupRequest("e", "2026-12-01", "09:30", "11:00"), "date"},
	} {
		_, err := c.OrderCourierPickup(context.Background(), ok, tc.req)
		problems, isRefusal := carrier.RefusalsOf(err)
		if !isRefusal || problems[0].Field != tc.field {
			t.Errorf("%s: %v, want a refusal on %q", name, err, tc.field)
		}
	}
	if _, err := c.OrderCourierPickup(context.Background(), carrier.Settings{"clientSecret": sandbox.SecretUnavailable}, pickupRequest("g", "2026-12-02", "09:00", "12:00")); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("clientSecret unavailable: %v", err)
	}
	if c.PickupOrders() != 0 {
		t.Errorf("refused orders were counted: %d", c.PickupOrders())
	}
	// Before 11:00 the afternoon window of the same day is still open.
	if _, err := c.OrderCourierPickup(context.Background(), ok, pickupRequest("f", "2026-12-01", "12:00", "17:00")); err != nil {
		t.Errorf("the afternoon window at 10:00: %v", err)
	}
	noCancel := pickupRequest("h", "2026-12-02", "09:00", "12:00")
	noCancel.Note = sandbox.NoteNoCancel
	p, err := c.OrderCourierPickup(context.Background(), ok, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	if _, refused := carrier.RefusalsOf(c.CancelCourierPickup(context.Background(), ok, p)); !refused {
		t.Error("a NO-CANCEL pickup was cancelled")
	}
}
