package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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

// With a journal, an order outlives its process: another process (another
// Carrier value on the file), or this one restarted, answers an order made
// again under its key from the journal, never ordering it twice, and
// cancels it; the journal counts one order per key.
func TestSandboxPickupOrdersKeptInTheJournal(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	clk := clock.NewManual(time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
	first := sandbox.NewWithConfig(sandbox.Config{Clock: clk, Journal: journal})
	req := pickupRequest("pck_j1", "2026-12-01", "12:30", "16:00")
	p, err := first.OrderCourierPickup(context.Background(), ok, req)
	if err != nil {
		t.Fatal(err)
	}
	refused := pickupRequest("pck_j2", "2026-12-01", "12:30", "16:00")
	refused.Note = sandbox.NoteRefuse
	if _, err := first.OrderCourierPickup(context.Background(), ok, refused); err == nil {
		t.Fatal("a REFUSE order was taken")
	}

	second := sandbox.NewWithConfig(sandbox.Config{Clock: clk, Journal: journal})
	again, err := second.OrderCourierPickup(context.Background(), ok, req)
	if err != nil || again != p || second.PickupOrders() != 0 {
		t.Fatalf("ordered again through another process: %+v %v, %d orders there (want the first order, none made)", again, err, second.PickupOrders())
	}
	orders, err := sandbox.PickupOrdersIn(journal)
	if err != nil || len(orders) != 1 || len(orders["pck_j1"]) != 1 || orders["pck_j1"][0] != p.ConfirmationNumber {
		t.Fatalf("journal: %v %v, want one order of pck_j1 under %s", orders, err, p.ConfirmationNumber)
	}
	if err := second.CancelCourierPickup(context.Background(), ok, p); err != nil {
		t.Fatalf("cancelled through another process: %v", err)
	}
	if err := first.CancelCourierPickup(context.Background(), ok, p); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Fatalf("a cancel the other process made: %v, want ErrAlreadyCancelled", err)
	}
}

// A line of the journal still being written (no newline yet) is no order,
// and is read once it is whole: a reader that met it half-way loses
// nothing.
func TestSandboxPickupJournalLineBeingWritten(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	clk := clock.NewManual(time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
	line := `{"pickup":{"key":"pck_w","confirmation_number":"SBC-20261201-0000000A","date":"2026-12-01","ready_from":"09:00","ready_until":"12:00","start":"2026-12-01T09:00:00Z"}}` + "\n"
	half := len(line) / 2
	if err := os.WriteFile(journal, []byte(line[:half]), 0o600); err != nil {
		t.Fatal(err)
	}
	c := sandbox.NewWithConfig(sandbox.Config{Clock: clk, Journal: journal})
	p := carrier.CourierPickup{ConfirmationNumber: "SBC-20261201-0000000A"}
	if _, refused := carrier.RefusalsOf(c.CancelCourierPickup(context.Background(), ok, p)); !refused {
		t.Fatal("a pickup half written to the journal was cancelled")
	}
	if orders, _ := sandbox.PickupOrdersIn(journal); len(orders) != 0 {
		t.Fatalf("half a line read as an order: %v", orders)
	}
	f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line[half:]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := c.OrderCourierPickup(context.Background(), ok, pickupRequest("pck_w", "2026-12-01", "09:00", "12:00"))
	if err != nil || again.ConfirmationNumber != p.ConfirmationNumber || c.PickupOrders() != 0 {
		t.Fatalf("the whole line: ordered again %+v %v, %d orders made", again, err, c.PickupOrders())
	}
	if err := c.CancelCourierPickup(context.Background(), ok, p); err != nil {
		t.Fatalf("cancel once the line is whole: %v", err)
	}
}
