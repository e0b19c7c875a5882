package ppl

import (
	"strconv"
	"testing"
	"time"

	"shipd/platform/carrier"
)

// Every legacy statusId the pplmyapi client names (see eventStatuses), with
// the standard status it must map to.
func TestEventStatusTable(t *testing.T) {
	want := map[string]carrier.TrackingStatus{
		"900": carrier.StatusWaitingForShipment,
		"150": carrier.StatusInTransit, "151": carrier.StatusInTransit, "170": carrier.StatusInTransit,
		"281": carrier.StatusInTransit, "282": carrier.StatusInTransit, "300": carrier.StatusInTransit,
		"343": carrier.StatusInTransit, "400": carrier.StatusInTransit, "720": carrier.StatusInTransit,
		"733": carrier.StatusInTransit, "734": carrier.StatusInTransit,
		"450": carrier.StatusDelivered, "451": carrier.StatusDelivered, "452": carrier.StatusDelivered,
		"336": carrier.StatusDeliveryFailed,
		"500": carrier.StatusReturned,
		"605": carrier.StatusDelivered, "606": carrier.StatusDelivered, "613": carrier.StatusDelivered, "614": carrier.StatusDelivered,
	}
	for id := 453; id <= 473; id++ {
		want[strconv.Itoa(id)] = carrier.StatusDeliveryFailed
	}
	for code, status := range want {
		if got := eventStatuses.Status(code); got != status {
			t.Errorf("statusId %s → %q, want %q", code, got, status)
		}
		if !status.Valid() {
			t.Errorf("statusId %s: %q is not a standard status", code, status)
		}
		if cod := codPaid[code]; cod != (code == "605" || code == "606" || code == "613" || code == "614") {
			t.Errorf("statusId %s: COD collected %v", code, cod)
		}
	}
	if len(eventStatuses) != len(want) {
		t.Errorf("the table has %d codes, the documented ones are %d", len(eventStatuses), len(want))
	}
	// Deliberately unmapped: anything PPL does not document, and the
	// textual codes of events without a statusId.
	for _, code := range []string{"0", "100", "449", "474", "999", "DELIVERED", ""} {
		if got := eventStatuses.Status(code); got != "" {
			t.Errorf("undocumented code %q → %q, want unmapped", code, got)
		}
	}
}

// Every shipmentState value, with the standard status it must map to.
func TestShipmentStateTable(t *testing.T) {
	want := map[string]carrier.TrackingStatus{
		"None":                   "", // deliberately unmapped: says nothing
		"Active":                 carrier.StatusWaitingForShipment,
		"PickedUpFromSender":     carrier.StatusInTransit,
		"OutForDelivery":         carrier.StatusOutForDelivery,
		"DeliveredToPickupPoint": carrier.StatusReadyForPickup,
		"Delivered":              carrier.StatusDelivered,
		"NotDelivered":           carrier.StatusDeliveryFailed,
		"Rejected":               carrier.StatusDeliveryFailed,
		"BackToSender":           carrier.StatusReturned,
		"Canceled":               carrier.StatusCancelled,
	}
	for state, status := range want {
		if got := stateStatuses.Status(state); got != status {
			t.Errorf("shipmentState %s → %q, want %q", state, got, status)
		}
	}
	if len(stateStatuses) != len(want)-1 {
		t.Errorf("the table has %d states, want %d", len(stateStatuses), len(want)-1)
	}
}

func TestTrack(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)

	// A number PPL does not know: an empty array.
	tr, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "99999999999"})
	if err != nil || tr.Recognized {
		t.Errorf("unknown number: %+v, %v", tr, err)
	}

	// A COD parcel's journey, statusIds as codes, the state agreeing with
	// the newest event (no extra event).
	e.sandbox.setTracking("40000001000", "Delivered", "2026-11-23T10:05:00+01:00",
		event(900, "DATA", "Data received", "2026-11-21T08:00:00+01:00"),
		event(150, "PICKUP", "Picked up from sender", "2026-11-21T15:00:00+01:00"),
		event(400, "DEPOT", "In depot", "2026-11-22T06:00:00+01:00"),
		event(455, "NOTHOME", "Recipient not at home", "2026-11-22T14:00:00+01:00"),
		event(450, "DELIVERED", "Delivered", "2026-11-23T10:00:00+01:00"),
		event(606, "CODPAID", "Cash on delivery paid", "2026-11-23T10:05:00+01:00"),
		map[string]any{"code": "NEWCODE", "name": "", "eventDate": "2026-11-23T11:00:00"},
	)
	tr, err = e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "40000001000"})
	if err != nil || !tr.Recognized {
		t.Fatalf("Track: %+v, %v", tr, err)
	}
	type ev struct {
		code   string
		status carrier.TrackingStatus
		cod    bool
	}
	want := []ev{
		{"900", carrier.StatusWaitingForShipment, false},
		{"150", carrier.StatusInTransit, false},
		{"400", carrier.StatusInTransit, false},
		{"455", carrier.StatusDeliveryFailed, false},
		{"450", carrier.StatusDelivered, false},
		{"606", carrier.StatusDelivered, true},
		{"NEWCODE", "", false}, // no statusId: the textual code, unmapped
	}
	if len(tr.Events) != len(want) {
		t.Fatalf("events %+v", tr.Events)
	}
	for i, w := range want {
		g := tr.Events[i]
		if g.Code != w.code || g.Status != w.status || g.CODCollected != w.cod {
			t.Errorf("event %d = %+v, want %+v", i, g, w)
		}
	}
	if tr.Events[0].Description != "Data received" || tr.Events[6].Description != "NEWCODE" {
		t.Errorf("descriptions %q %q", tr.Events[0].Description, tr.Events[6].Description)
	}
	if at := tr.Events[4].At; !at.Equal(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("event time %v", at)
	}
	if at := tr.Events[6].At; !at.Equal(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("zone-less event time %v, want Prague time", at)
	}

	// A state newer than the events and saying more: one more event.
	e.sandbox.setTracking("40000002000", "OutForDelivery", "2026-11-22T07:30:00Z",
		event(150, "PICKUP", "Picked up", "2026-11-21T15:00:00Z"))
	tr, err = e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "40000002000"})
	if err != nil || len(tr.Events) != 2 || tr.Events[1].Code != "OutForDelivery" || tr.Events[1].Status != carrier.StatusOutForDelivery ||
		!tr.Events[1].At.Equal(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)) {
		t.Errorf("state event: %+v, %v", tr.Events, err)
	}

	// A stale state (older than the newest event) and "None" add nothing.
	e.sandbox.setTracking("40000003000", "Active", "2026-11-21T08:00:00Z",
		event(150, "PICKUP", "Picked up", "2026-11-21T15:00:00Z"))
	e.sandbox.setTracking("40000004000", "None", "")
	for _, n := range []string{"40000003000", "40000004000"} {
		tr, err = e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: n})
		for _, ev := range tr.Events {
			if ev.Code == "Active" || ev.Code == "None" {
				t.Errorf("%s: state event %+v", n, ev)
			}
		}
		if err != nil || !tr.Recognized {
			t.Errorf("%s: %+v, %v", n, tr, err)
		}
	}
}
