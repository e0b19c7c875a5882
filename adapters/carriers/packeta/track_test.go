package packeta

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

// documentedCodes reads the status codes of Packeta's reference as
// testdata/packet_status_codes.tsv transcribes them.
func documentedCodes(t *testing.T) map[string]string {
	t.Helper()
	file, err := os.Open("testdata/packet_status_codes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	codes := map[string]string{}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		code, text, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("malformed line %q", line)
		}
		codes[code] = text
	}
	if len(codes) < 10 {
		t.Fatalf("only %d codes read", len(codes))
	}
	return codes
}

// TestStatusTable: every code Packeta documents is mapped, to the status
// chosen for it (statuses.go says why); 999 unknown deliberately to
// nothing; the table holds no code Packeta does not document.
func TestStatusTable(t *testing.T) {
	want := map[string]carrier.TrackingStatus{
		"received data":          carrier.StatusWaitingForShipment,
		"arrived":                carrier.StatusInTransit,
		"prepared for departure": carrier.StatusInTransit,
		"departed":               carrier.StatusInTransit,
		"ready for pickup":       carrier.StatusReadyForPickup,
		"handed to carrier":      carrier.StatusInTransit,
		"delivered":              carrier.StatusDelivered,
		"posted back":            carrier.StatusDeliveryFailed,
		"returned":               carrier.StatusReturned,
		"cancelled":              carrier.StatusCancelled,
		"collected":              carrier.StatusInTransit,
		"customs":                carrier.StatusOnHold,
		"reverse packet arrived": carrier.StatusInTransit,
		"delivery attempt":       carrier.StatusDeliveryFailed,
		"rejected by recipient":  carrier.StatusDeliveryFailed,
		"unknown":                "", // says nothing: deliberately unmapped
	}
	documented := documentedCodes(t)
	for code, text := range documented {
		status, ok := want[text]
		if !ok {
			t.Errorf("documented code %s (%s) has no expectation here", code, text)
			continue
		}
		if got := Statuses.Status(code); got != status {
			t.Errorf("%s (%s) → %q, want %q", code, text, got, status)
		}
		if status != "" && !status.Valid() {
			t.Errorf("%s: %q is not a standard status", code, status)
		}
	}
	for code := range Statuses {
		if _, ok := documented[code]; !ok {
			t.Errorf("the table maps %s, which Packeta does not document", code)
		}
	}
	for _, code := range []string{"0", "8", "13", "18", "20", "999", ""} {
		if got := Statuses.Status(code); got != "" {
			t.Errorf("undocumented or unknown code %q → %q, want unmapped", code, got)
		}
	}
}

// TestTrackJourney follows a packet to a pickup point and its pickup.
func TestTrackJourney(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	out, err := c.CreateShipment(ctx, s, pointRequest(1))
	if err != nil {
		t.Fatal(err)
	}
	n := out.TrackingNumbers[0]
	f.move(n, 2, "arrived", "Packet has been accepted at our branch.")
	f.move(n, 4, "departed", "Packet is on the way.")
	f.move(n, 5, "ready for pickup", "Packet is ready for pickup.")
	f.move(n, 7, "delivered", "Packet was picked up.")
	f.move(n, 999, "unknown", "Unknown packet status.")
	// Packeta prints barcodes with spaces; either form is the same packet.
	spaced := "Z " + n[1:4] + " " + n[4:8] + " " + n[8:]
	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: spaced})
	if err != nil || !tr.Recognized {
		t.Fatalf("%+v %v", tr, err)
	}
	var codes []string
	var statuses []carrier.TrackingStatus
	for _, e := range tr.Events {
		codes = append(codes, e.Code)
		statuses = append(statuses, e.Status)
		if e.CODCollected {
			t.Error("Packeta reports no COD collection")
		}
	}
	if strings.Join(codes, ",") != "1,2,4,5,7,999" {
		t.Errorf("codes %v", codes)
	}
	wantStatuses := []carrier.TrackingStatus{carrier.StatusWaitingForShipment, carrier.StatusInTransit, carrier.StatusInTransit,
		carrier.StatusReadyForPickup, carrier.StatusDelivered, ""}
	for i := range wantStatuses {
		if statuses[i] != wantStatuses[i] {
			t.Errorf("statuses %v, want %v", statuses, wantStatuses)
			break
		}
	}
	if tr.Events[3].Description != "Packet is ready for pickup." {
		t.Errorf("description %q", tr.Events[3].Description)
	}
}

func TestTrackUnknownNumbers(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	tr, err := c.Track(ctx, settingsFor(f), carrier.TrackingRequest{TrackingNumber: "Z9999999999"})
	if err != nil || tr.Recognized {
		t.Errorf("unknown packet: %+v %v", tr, err)
	}
	before := len(f.callLog())
	tr, err = c.Track(ctx, settingsFor(f), carrier.TrackingRequest{TrackingNumber: "00340434161094042557"})
	if err != nil || tr.Recognized || len(f.callLog()) != before {
		t.Errorf("a number that is no Packeta barcode: %+v %v", tr, err)
	}
	s := settingsFor(f)
	s["apiPassword"] = "wrong"
	_, err = c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "Z9999999999"})
	isRejection(t, err, "apiPassword", "Incorrect API password.")
}

func TestParseTime(t *testing.T) {
	prg, _ := time.LoadLocation("Europe/Prague")
	if prg == nil {
		prg = prague
	}
	cases := map[string]time.Time{
		"2026-11-21T10:20:30":       time.Date(2026, 11, 21, 10, 20, 30, 0, prg),
		"2026-11-21T10:20:30+01:00": time.Date(2026, 11, 21, 9, 20, 30, 0, time.UTC),
		"2026-11-21T09:20:30Z":      time.Date(2026, 11, 21, 9, 20, 30, 0, time.UTC),
	}
	for in, want := range cases {
		if got := parseTime(in); !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, want %v", in, got, want)
		}
	}
	if !parseTime("yesterday").IsZero() {
		t.Error("garbage parsed")
	}
}
