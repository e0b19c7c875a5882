package dhlparcelde

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"shipd/platform/carrier"
	"shipd/platform/logtest"
)

// A booking DHL refused in part is cancelled; when that cancel fails, the
// shipment DHL still holds is logged at WARN and named on the booking's
// error (carrier.LeftoverOf), which is still the booking's refusal: the
// cancel's failure (unavailable, or DHL refusing it) does not leak into how
// the booking is classified.
func TestFailedCancelOfAPartialBookingIsNotDropped(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cancel   func(f *fake) // makes the coming DELETE fail; f.mu is held
		cancelBy string        // what the cancel's error says
	}{
		{"the cancel unanswered", func(f *fake) { f.fail = append(f.fail, http.StatusServiceUnavailable) }, "503"},
		{"the cancel refused", func(f *fake) {
			for no := range f.shipments {
				f.manifested[no] = true
			}
		}, "already manifested"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := logtest.Capture(t)
			f := newFake(t)
			f.failItem = func(i int) *responseItem {
				if i != 1 {
					return nil
				}
				f.mu.Lock()
				tc.cancel(f)
				f.mu.Unlock()
				it := itemError("shipments[1].details.weight.value", "Das Gewicht ist für das Produkt zu hoch.")
				return &it
			}
			_, err := f.carrier().CreateShipment(context.Background(), testSettings(), request(parcel(1), parcel(2)))

			rs, refused := carrier.RefusalsOf(err)
			if !refused || !reflect.DeepEqual(fields(rs), []string{"parcels.1.weight_amount"}) {
				t.Errorf("the booking's refusal: %v (%v)", rs, err)
			}
			if errors.Is(err, carrier.ErrUnavailable) {
				t.Errorf("the cancel's failure made the booking unavailable: %v", err)
			}
			var created []string
			for no, sh := range f.shipments {
				created = append(created, no)
				if sh.deleted {
					t.Errorf("shipment %s was deleted after all", no)
				}
			}
			left := carrier.LeftoverOf(err)
			if left == nil || !slices.Equal(left.ProviderIDs, created) || !strings.Contains(left.CancelErr.Error(), tc.cancelBy) {
				t.Fatalf("leftover %+v, want the shipment DHL still holds %v and why the cancel failed", left, created)
			}
			line := logs.String()
			if !strings.Contains(line, "level=WARN") || !strings.Contains(line, created[0]) || !strings.Contains(line, "could not be cancelled") {
				t.Errorf("log: %s", line)
			}
		})
	}
}

// A cancel that works leaves nothing to record.
func TestCancelledPartialBookingLeavesNoLeftover(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFake(t)
	f.failItem = func(i int) *responseItem {
		if i != 1 {
			return nil
		}
		it := itemError("shipments[1].details.weight.value", "Das Gewicht ist für das Produkt zu hoch.")
		return &it
	}
	_, err := f.carrier().CreateShipment(context.Background(), testSettings(), request(parcel(1), parcel(2)))
	if _, refused := carrier.RefusalsOf(err); !refused || carrier.LeftoverOf(err) != nil {
		t.Errorf("err %v: want the refusal alone", err)
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("log: %s", logs)
	}
}
