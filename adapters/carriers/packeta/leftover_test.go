package packeta

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"shipd/platform/carrier"
	"shipd/platform/logtest"
)

// leftAtPacketa checks that err names exactly the live packets as left at
// Packeta, with the cancel's failure, and that a WARN line names them.
func leftAtPacketa(t *testing.T, f *fakePacketa, err error, logs *bytes.Buffer, cancelBy string) {
	t.Helper()
	live := f.live()
	var ids []string
	for _, p := range live {
		ids = append(ids, p.id)
	}
	left := carrier.LeftoverOf(err)
	if len(live) == 0 || left == nil || !slices.Equal(left.ProviderIDs, ids) || !strings.Contains(left.CancelErr.Error(), cancelBy) {
		t.Fatalf("leftover %+v, want the packets Packeta still holds %v and why the cancel failed (%q)", left, ids, cancelBy)
	}
	line := logs.String()
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "could not be cancelled") ||
		!strings.Contains(line, live[0].id) || !strings.Contains(line, live[0].barcode) {
		t.Errorf("log: %s", line)
	}
}

// A refusal midway cancels the packets already made; when that cancel
// fails, the packets Packeta still holds are logged at WARN and named on
// the error (carrier.LeftoverOf), which is still the booking's refusal and
// no more: neither an unanswered cancel nor Packeta refusing it changes how
// the booking is classified.
func TestFailedCancelAfterARefusalMidwayIsNotDropped(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cancel   func(f *fakePacketa) // makes the coming cancels fail
		cancelBy string
	}{
		{"the cancel unanswered", func(f *fakePacketa) { f.fail("cancelPacket", 503, -1) }, "503"},
		{"the cancel refused", func(f *fakePacketa) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, p := range f.packets {
				p.moving = true
			}
		}, "cannot be cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := logtest.Capture(t)
			f := newFake(t)
			req := pointRequest(3)
			req.PickupPoint = "1234" // takes at most 5 kg
			req.Parcels[1].Weight = 8
			req.Booking.Accepted = func(context.Context, string) error { tc.cancel(f); return nil }
			_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), req)

			rs, refused := carrier.RefusalsOf(err)
			if !refused || len(rs) != 1 || rs[0].Field != "parcels.1.weight_amount" {
				t.Errorf("the booking's refusal: %v (%v)", rs, err)
			}
			if errors.Is(err, carrier.ErrUnavailable) {
				t.Errorf("the cancel's failure made the booking unavailable: %v", err)
			}
			leftAtPacketa(t, f, err, logs, tc.cancelBy)
		})
	}
}

// A packet the booking could not record is cancelled (the next attempt
// would make it again); when that cancel fails, it is named on the error,
// which stays unavailable, so the booking is retried.
func TestFailedCancelOfAnUnrecordedPacketIsNotDropped(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFake(t)
	h := &handles{fail: map[int]error{1: errors.New("database is gone")}}
	req := pointRequest(2)
	req.Booking.Accepted = func(ctx context.Context, handle string) error {
		f.fail("cancelPacket", 503, -1)
		return h.accept(ctx, handle)
	}
	_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), req)
	unavailable(t, err)
	leftAtPacketa(t, f, err, logs, "503")
}

// Cancels that work leave nothing to record.
func TestCancelledPacketsLeaveNoLeftover(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFake(t)
	req := pointRequest(3)
	req.PickupPoint = "1234"
	req.Parcels[1].Weight = 8
	_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), req)
	if _, refused := carrier.RefusalsOf(err); !refused || carrier.LeftoverOf(err) != nil || len(f.live()) != 0 {
		t.Errorf("err %v, live %v: want the refusal alone and no packet left", err, barcodes(f.live()))
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("log: %s", logs)
	}
}
