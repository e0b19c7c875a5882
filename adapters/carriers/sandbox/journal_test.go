package sandbox_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// keyed is request(ref) under a booking key whose handle, once accepted, is
// written to *handle.
func keyed(ref, key string, handle *string) carrier.ShipmentRequest {
	req := request(ref)
	req.Booking = carrier.Booking{Key: key, Accepted: func(_ context.Context, h string) error { *handle = h; return nil }}
	return req
}

// A booking hands its id to Booking.Accept before it answers, and a booking
// given that handle is resumed, not made again: with a journal, by another
// process (another Carrier value) too, which also prints and cancels it.
func TestABookingIsAcceptedThenResumedFromTheJournal(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "bookings.jsonl")
	first := sandbox.NewWithConfig(sandbox.Config{Journal: journal})
	var handle string
	out := book(t, first, keyed("ORDER-J1", "sh_1", &handle))
	if handle == "" || handle != out.ProviderShipmentID {
		t.Fatalf("accepted handle %q, answer %q", handle, out.ProviderShipmentID)
	}

	other := sandbox.NewWithConfig(sandbox.Config{Journal: journal}) // another process, or this one restarted
	req := keyed("ORDER-J1", "sh_1", new(string))
	req.Booking.Handle = handle
	resumed := book(t, other, req)
	if resumed.ProviderShipmentID != out.ProviderShipmentID || !slices.Equal(resumed.TrackingNumbers, out.TrackingNumbers) ||
		*resumed.Price != *out.Price || len(resumed.Labels) != 3 {
		t.Errorf("resumed %+v, booked %+v", resumed, out)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: handle, TrackingNumbers: out.TrackingNumbers}
	if got, err := other.Labels(context.Background(), settings, ref, "zpl"); err != nil || barcodeOf(t, got[2].Data) != out.TrackingNumbers[2] {
		t.Errorf("labels printed by another process: %v", err)
	}
	if err := other.CancelShipment(context.Background(), settings, ref); err != nil {
		t.Fatal(err)
	}
	if err := first.CancelShipment(context.Background(), settings, ref); !errors.Is(err, carrier.ErrAlreadyCancelled) {
		t.Errorf("a cancel the other process made: %v, want ErrAlreadyCancelled", err)
	}
	counts, err := sandbox.Bookings(journal)
	if err != nil || counts["sh_1"] != 1 || len(counts) != 1 {
		t.Errorf("bookings %v (%v), want one for sh_1", counts, err)
	}

	// A booking asked again without the handle is a second booking, as at
	// a carrier without idempotency keys: the journal shows it.
	book(t, other, keyed("ORDER-J1", "sh_1", new(string)))
	if counts, _ := sandbox.Bookings(journal); counts["sh_1"] != 2 {
		t.Errorf("bookings %v after booking again", counts)
	}
}

// A handle the sandbox does not know: with a journal (which keeps every
// booking) it is unavailable, never a new booking; without one the sandbox
// forgot it in a restart, and makes it again under that id, as the carrier
// that kept it would answer.
func TestAnUnknownHandle(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "bookings.jsonl")
	req := keyed("ORDER-J2", "sh_2", new(string))
	req.Booking.Handle = "SBXNOSUCHBOOKING"
	if _, err := sandbox.NewWithConfig(sandbox.Config{Journal: journal}).CreateShipment(context.Background(), settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("resuming an unknown booking with a journal: %v", err)
	}
	if counts, _ := sandbox.Bookings(journal); len(counts) != 0 {
		t.Errorf("bookings %v", counts)
	}
	restarted := sandbox.New()
	out := book(t, restarted, req)
	if out.ProviderShipmentID != "SBXNOSUCHBOOKING" || len(out.TrackingNumbers) != 3 || len(out.Labels) != 3 {
		t.Errorf("a forgotten booking made again: %+v", out)
	}
	if got, err := restarted.Labels(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: "SBXNOSUCHBOOKING"}, "pdf"); err != nil || len(got) != 3 {
		t.Errorf("its labels: %d, %v", len(got), err)
	}
}

// A booking whose acceptance shipd could not record fails as unavailable.
func TestAFailedAcceptanceFailsTheBooking(t *testing.T) {
	c := sandbox.New()
	req := request("ORDER-J3")
	req.Booking = carrier.Booking{Key: "sh_3", Accepted: func(context.Context, string) error { return errors.New("database down") }}
	if _, err := c.CreateShipment(context.Background(), settings, req); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("answered %v", err)
	}
}

// The triggers of the label step: an answer lacking a tracking number (a
// resumed booking answers them all), labels that fail n times, labels that
// are corrupt n times, and a label outage for a while.
func TestLabelStepTriggers(t *testing.T) {
	c := sandbox.New()
	var handle string
	out := book(t, c, keyed("NO-TRACKING-NUMBER-1", "sh_4", &handle))
	if len(out.TrackingNumbers) != 2 {
		t.Errorf("NO-TRACKING-NUMBER answered %d numbers for 3 parcels", len(out.TrackingNumbers))
	}
	req := keyed("NO-TRACKING-NUMBER-1", "sh_4", new(string))
	req.Booking.Handle = handle
	if resumed := book(t, c, req); len(resumed.TrackingNumbers) != 3 {
		t.Errorf("resumed with %d numbers", len(resumed.TrackingNumbers))
	}

	out = book(t, c, request("LABELFAIL-2-ORDER"))
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}
	if len(out.Labels) != 0 {
		t.Error("a LABELFAIL booking answered with labels")
	}
	for i := range 2 {
		if _, err := c.Labels(context.Background(), settings, ref, "pdf"); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("label fetch %d: %v", i+1, err)
		}
	}
	if got, err := c.Labels(context.Background(), settings, ref, "pdf"); err != nil || len(got) != 3 {
		t.Errorf("third label fetch: %d labels, %v", len(got), err)
	}

	out = book(t, c, request("LABELBAD-1-ORDER"))
	if _, err := labels.Merge("zpl", [][]byte{out.Labels[0].Data}); err == nil {
		t.Error("a LABELBAD answer merged")
	}
	got, err := c.Labels(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	parts := [][]byte{}
	for _, l := range got {
		parts = append(parts, l.Data)
	}
	if _, err := labels.Merge("pdf", parts); err != nil {
		t.Errorf("the second answer does not merge: %v", err)
	}

	down := sandbox.NewWithConfig(sandbox.Config{FailLabelsUntil: time.Now().Add(time.Hour)})
	out = book(t, down, request("ORDER-OUTAGE"))
	if len(out.Labels) != 0 || len(out.TrackingNumbers) != 3 {
		t.Errorf("during the outage the booking answered %d labels, %d numbers", len(out.Labels), len(out.TrackingNumbers))
	}
	if _, err := down.Labels(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}, "pdf"); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("labels during the outage: %v", err)
	}
}
