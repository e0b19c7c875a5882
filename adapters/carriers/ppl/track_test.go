package ppl

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/vendorspec"
	"shipd/platform/carrier"
)

// Every legacy statusId of testdata/status-ids.tsv (transcribed from the
// pplmyapi client, as PPL publishes no list) is mapped, to a standard
// status, and nothing else is.
func TestEventStatusTable(t *testing.T) {
	f, err := os.Open("testdata/status-ids.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, name, _ := strings.Cut(line, "\t")
		if _, dup := listed[id]; !dup {
			listed[id] = name
		}
	}
	if len(listed) < 40 {
		t.Fatalf("only %d statusIds read", len(listed))
	}
	for id, name := range listed {
		status, ok := eventStatuses[id]
		if !ok || !status.Valid() {
			t.Errorf("statusId %s (%s) → %q, want a standard status", id, name, status)
		}
		wantCOD := strings.HasPrefix(name, "COD_PAID")
		if codPaid[id] != wantCOD {
			t.Errorf("statusId %s (%s): COD collected %v", id, name, codPaid[id])
		}
		if strings.HasPrefix(name, "NOT_DELIVERED") && status != carrier.StatusDeliveryFailed ||
			strings.HasPrefix(name, "DELIVERED") && status != carrier.StatusDelivered {
			t.Errorf("statusId %s (%s) → %q", id, name, status)
		}
	}
	for id := range eventStatuses {
		if _, ok := listed[id]; !ok {
			t.Errorf("statusId %s is in the table but in no vendor list", id)
		}
	}
}

// Every value of PPL's ShipmentStates enum (the phase of an event), read
// from the OpenAPI document in testdata, is in the phase table; "None"
// explicitly maps to nothing.
func TestPhaseStatusTable(t *testing.T) {
	spec, err := vendorspec.Load("testdata/cpl-api.yaml", "http://ppl.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	enum := spec.Doc().Components.Schemas["Eps.Api.MyApi2.Web.Models.Shipment.ShipmentStates"].Value.Enum
	if len(enum) != 14 {
		t.Fatalf("ShipmentStates has %d values, want PPL's 14", len(enum))
	}
	for _, v := range enum {
		phase := v.(string)
		status, ok := phaseStatuses[phase]
		switch {
		case !ok:
			t.Errorf("phase %s is not in the table", phase)
		case phase == "None" && status != "":
			t.Errorf("phase None → %q, want nothing", status)
		case phase != "None" && !status.Valid():
			t.Errorf("phase %s → %q, not a standard status", phase, status)
		}
	}
	if len(phaseStatuses) != len(enum) {
		t.Errorf("the table has %d phases, PPL's enum %d", len(phaseStatuses), len(enum))
	}
	for phase, want := range map[string]carrier.TrackingStatus{
		"Delivered": carrier.StatusDelivered, "DeliveredToPickupPoint": carrier.StatusReadyForPickup,
		"OutForDelivery": carrier.StatusOutForDelivery, "BackToSender": carrier.StatusReturned, "Canceled": carrier.StatusCancelled,
	} {
		if got := phaseStatuses.Status(phase); got != want {
			t.Errorf("phase %s → %q, want %q", phase, got, want)
		}
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

	// A COD parcel's journey: statusIds as codes, phases preferred.
	e.sandbox.setTracking("40000001000",
		event(900, "DATA", "DataShipment", "Data received", "2026-11-21T08:00:00+01:00"),
		event(150, "PICKUP", "PickedUpFromSender", "Picked up from sender", "2026-11-21T15:00:00+01:00"),
		event(400, "DEPOT", "", "In depot", "2026-11-22T06:00:00+01:00"),
		event(455, "NOTHOME", "NotDelivered", "Recipient not at home", "2026-11-22T14:00:00+01:00"),
		event(281, "OUT", "OutForDelivery", "Out for delivery", "2026-11-23T07:00:00+01:00"),
		event(450, "DELIVERED", "Delivered", "Delivered", "2026-11-23T10:00:00+01:00"),
		event(606, "CODPAID", "CodPaidDate", "Cash on delivery paid", "2026-11-23T10:05:00+01:00"),
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
		{"400", carrier.StatusInTransit, false}, // no phase: the statusId's status
		{"455", carrier.StatusDeliveryFailed, false},
		{"281", carrier.StatusOutForDelivery, false}, // the phase wins over the statusId
		{"450", carrier.StatusDelivered, false},
		{"606", carrier.StatusDelivered, true},
		{"NEWCODE", "", false}, // no statusId, no phase: the textual code, unmapped
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
	if tr.Events[0].Description != "Data received" || tr.Events[7].Description != "NEWCODE" {
		t.Errorf("descriptions %q %q", tr.Events[0].Description, tr.Events[7].Description)
	}
	if at := tr.Events[5].At; !at.Equal(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("event time %v", at)
	}
	if at := tr.Events[7].At; !at.Equal(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("zone-less event time %v, want Prague time", at)
	}

	// A parcel with no events yet: recognized, nothing to say.
	e.sandbox.setTracking("40000004000")
	tr, err = e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "40000004000"})
	if err != nil || !tr.Recognized || len(tr.Events) != 0 {
		t.Errorf("no events: %+v, %v", tr, err)
	}
}
