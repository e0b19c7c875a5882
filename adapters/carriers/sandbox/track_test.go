package sandbox_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/platform/carrier"
	"shipd/platform/clock"
)

var start = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

func tracker(scale float64) (*sandbox.Carrier, *clock.Manual) {
	clk := clock.NewManual(start)
	return sandbox.NewWithConfig(sandbox.Config{Clock: clk, TimeScale: scale}), clk
}

func track(t *testing.T, c *sandbox.Carrier, tn string) carrier.Tracking {
	t.Helper()
	res, err := c.Track(context.Background(), settings, carrier.TrackingRequest{TrackingNumber: tn, Since: start})
	if err != nil {
		t.Fatalf("track %s: %v", tn, err)
	}
	return res
}

// lastStatus is the status of the newest event the table maps.
func lastStatus(tr carrier.Tracking) carrier.TrackingStatus {
	for i := len(tr.Events) - 1; i >= 0; i-- {
		if tr.Events[i].Status != "" {
			return tr.Events[i].Status
		}
	}
	return ""
}

func TestJourneysTellTheirStoryAsSandboxTimePasses(t *testing.T) {
	type step struct {
		after time.Duration
		want  carrier.TrackingStatus
	}
	cases := []struct {
		name, number string
		steps        []step
	}{
		{"normal", "SB000000014CZ", []step{{0, carrier.StatusWaitingForShipment}, {2 * time.Hour, carrier.StatusInTransit},
			{20 * time.Hour, carrier.StatusOutForDelivery}, {26 * time.Hour, carrier.StatusDelivered}}},
		{"delivery failed", "SB100000017CZ", []step{{20 * time.Hour, carrier.StatusOutForDelivery},
			{24 * time.Hour, carrier.StatusDeliveryFailed}, {44 * time.Hour, carrier.StatusOutForDelivery}, {48 * time.Hour, carrier.StatusDelivered}}},
		{"returned", "SB200000010CZ", []step{{24 * time.Hour, carrier.StatusDeliveryFailed}, {26 * time.Hour, carrier.StatusReadyForPickup},
			{72 * time.Hour, carrier.StatusInTransit}, {96 * time.Hour, carrier.StatusReturned}}},
		{"on hold", "SB300000012CZ", []step{{10 * time.Hour, carrier.StatusOnHold}, {34 * time.Hour, carrier.StatusInTransit},
			{50 * time.Hour, carrier.StatusDelivered}}},
		{"serial 9 is normal", sandbox.S10("SB", "90000001", "DE"), []step{{26 * time.Hour, carrier.StatusDelivered}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// At scale 3600 a sandbox hour is a real second.
			c, clk := tracker(3600)
			for _, s := range tc.steps {
				clk.Set(start.Add(s.after / 3600))
				tr := track(t, c, tc.number)
				if !tr.Recognized || lastStatus(tr) != s.want {
					t.Fatalf("after %v sandbox time: %v with %d events, want %s", s.after, lastStatus(tr), len(tr.Events), s.want)
				}
				for _, e := range tr.Events {
					if e.At.After(clk.Now()) || e.At.Before(start) || e.Code == "" || e.Description == "" {
						t.Fatalf("event %+v outside [start, now] or without code/description", e)
					}
				}
			}
			clk.Set(start.Add(time.Hour)) // an hour before the first step just shown
			if n := len(track(t, c, tc.number).Events); n == 0 {
				t.Fatal("the data scan is there from the start")
			}
		})
	}
}

func TestJourneyRunsOnRealHoursAtScaleOne(t *testing.T) {
	c, clk := tracker(1)
	clk.Set(start.Add(25 * time.Hour))
	if got := lastStatus(track(t, c, "SB000000014CZ")); got != carrier.StatusOutForDelivery {
		t.Fatalf("25 h in: %s", got)
	}
	clk.Set(start.Add(26 * time.Hour))
	if got := lastStatus(track(t, c, "SB000000014CZ")); got != carrier.StatusDelivered {
		t.Fatalf("26 h in: %s", got)
	}
}

func TestCashOnDeliveryParcelsReportTheCollection(t *testing.T) {
	c, clk := tracker(1)
	clk.Set(start.Add(27 * time.Hour))
	tr := track(t, c, "SB010000019CZ")
	last := tr.Events[len(tr.Events)-1]
	if !last.CODCollected || last.Code != "CODPAID" || last.Status != carrier.StatusDelivered {
		t.Fatalf("last event of a COD parcel: %+v", last)
	}
	for _, e := range track(t, c, "SB000000014CZ").Events {
		if e.CODCollected {
			t.Fatalf("a parcel without COD reported a collection: %+v", e)
		}
	}
	clk.Set(start.Add(200 * time.Hour))
	for _, e := range track(t, c, "SB210000014CZ").Events { // returned: never delivered, never collected
		if e.CODCollected {
			t.Fatalf("a returned parcel reported a collection: %+v", e)
		}
	}
}

func TestNumbersTheCarrierDoesNotKnow(t *testing.T) {
	c, clk := tracker(1)
	clk.Set(start.Add(100 * time.Hour))
	for _, tn := range []string{"SB400000015CZ", "SB000000015CZ" /* wrong check digit */, "RR000000014CZ" /* not SB */, "", "123"} {
		if tr := track(t, c, tn); tr.Recognized || len(tr.Events) != 0 {
			t.Fatalf("%q: %+v", tn, tr)
		}
	}
}

func TestUnmappedJourneyHasOnlyCodesTheTableLacks(t *testing.T) {
	c, clk := tracker(1)
	clk.Set(start.Add(10 * time.Hour))
	tr := track(t, c, "SB500000018CZ")
	if !tr.Recognized || len(tr.Events) != 2 {
		t.Fatalf("%+v", tr)
	}
	for _, e := range tr.Events {
		if e.Status != "" || !strings.HasPrefix(e.Code, "X-") {
			t.Fatalf("unmapped journey event %+v", e)
		}
	}
}

func TestTrackingServiceFailures(t *testing.T) {
	c, _ := tracker(1)
	_, err := c.Track(context.Background(), settings, carrier.TrackingRequest{TrackingNumber: "SB600000015CZ", Since: start})
	if !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("journey 6: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.Track(ctx, settings, carrier.TrackingRequest{TrackingNumber: "SB700000013CZ", Since: start})
	if !errors.Is(err, carrier.ErrUnavailable) || ctx.Err() == nil {
		t.Fatalf("journey 7 returned before its context ended: %v", err)
	}
	_, err = c.Track(context.Background(), carrier.Settings{"clientId": "c", "clientSecret": sandbox.SecretUnavailable},
		carrier.TrackingRequest{TrackingNumber: "SB000000014CZ", Since: start})
	if !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("unavailable secret: %v", err)
	}
}

func TestBookedParcelsCarryTheJourneyTheReferenceAsks(t *testing.T) {
	c, clk := tracker(3600)
	cases := map[string]carrier.TrackingStatus{
		"ORDER-1":          carrier.StatusDelivered,
		"TRACK-RETURNED-1": carrier.StatusReturned,
		"TRACK-UNMAPPED-1": "",
	}
	for ref, want := range cases {
		created, err := c.CreateShipment(context.Background(), settings, request(ref))
		if err != nil {
			t.Fatal(err)
		}
		clk.Set(start.Add(200 * time.Second))
		if got := lastStatus(track(t, c, created.TrackingNumbers[0])); got != want {
			t.Fatalf("%s: %s, want %q", ref, got, want)
		}
	}
	req := request("TRACK-FAILED-COD")
	req.ProductType = "STANDARD_COD"
	req.COD = &carrier.Money{Minor: 10000, Currency: "CZK"}
	created, err := c.CreateShipment(context.Background(), settings, req)
	if err != nil {
		t.Fatal(err)
	}
	tr := track(t, c, created.TrackingNumbers[0])
	if last := tr.Events[len(tr.Events)-1]; !last.CODCollected || !slices.ContainsFunc(tr.Events, func(e carrier.TrackingEvent) bool {
		return e.Status == carrier.StatusDeliveryFailed
	}) {
		t.Fatalf("COD parcel on the failed journey: %+v", tr.Events)
	}
}

func TestCancelledShipmentsParcelsEndCancelled(t *testing.T) {
	c, _ := tracker(1)
	created, err := c.CreateShipment(context.Background(), settings, request("ORDER-C"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CancelShipment(context.Background(), settings, carrier.ShipmentRef{ProviderShipmentID: created.ProviderShipmentID}); err != nil {
		t.Fatal(err)
	}
	if got := lastStatus(track(t, c, created.TrackingNumbers[0])); got != carrier.StatusCancelled {
		t.Fatalf("cancelled parcel: %s", got)
	}
}
