package carrierhttp_test

import (
	"context"
	"errors"
	"testing"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// A failed record of the carrier's acceptance ends the attempt as
// unavailable (tried again), a refusal stays one, and a booking that records
// nothing accepts.
func TestAcceptSortsTheRecordsFailure(t *testing.T) {
	ctx := context.Background()
	var got string
	b := carrier.Booking{Accepted: func(_ context.Context, h string) error { got = h; return nil }}
	if err := carrierhttp.Accept(ctx, b, "H1"); err != nil || got != "H1" {
		t.Errorf("Accept = %v, recorded %q", err, got)
	}
	if err := carrierhttp.Accept(ctx, carrier.Booking{}, "H2"); err != nil {
		t.Errorf("without a recorder: %v", err)
	}
	dbDown := errors.New("database down")
	b.Accepted = func(context.Context, string) error { return dbDown }
	if err := carrierhttp.Accept(ctx, b, "H3"); !errors.Is(err, carrier.ErrUnavailable) || !errors.Is(err, dbDown) {
		t.Errorf("a failed record: %v, want ErrUnavailable wrapping it", err)
	}
	refusal := carrier.Reject("", "no")
	b.Accepted = func(context.Context, string) error { return refusal }
	if err := carrierhttp.Accept(ctx, b, "H4"); !errors.Is(err, refusal) || errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("a refusal: %v, want it as it is", err)
	}
}
