package dpdpl

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

// vendorCodes reads testdata/event-codes.tsv: the codes and the status each
// must map to, as transcribed there with their source.
func vendorCodes(t *testing.T) map[string]carrier.TrackingStatus {
	t.Helper()
	f, err := os.Open("testdata/event-codes.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]carrier.TrackingStatus{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			t.Fatalf("event-codes.tsv: %q has no code, status and meaning", line)
		}
		out[cols[0]] = carrier.TrackingStatus(cols[1])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("event-codes.tsv lists no code")
	}
	return out
}

// Every code of testdata/event-codes.tsv maps as listed there, the table
// has no code the file lacks, and others map to nothing.
func TestEventStatusTable(t *testing.T) {
	want := vendorCodes(t)
	for code, status := range want {
		if !status.Valid() {
			t.Errorf("event-codes.tsv: %s → %q is not a standard status", code, status)
		}
		if got := eventStatuses.Status(code); got != status {
			t.Errorf("%s → %q, want %q", code, got, status)
		}
	}
	for code := range eventStatuses {
		if _, ok := want[code]; !ok {
			t.Errorf("the table maps %s, which event-codes.tsv does not list", code)
		}
	}
	for _, code := range []string{"", "000000", "999999", "DELIVERED"} {
		if got := eventStatuses.Status(code); got != "" {
			t.Errorf("unlisted code %q → %q, want unmapped", code, got)
		}
	}
}

func TestTrack(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t)

	// A waybill DPD does not know: no events.
	tr, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "0000000000000U"})
	if err != nil || tr.Recognized {
		t.Errorf("unknown waybill: %+v, %v", tr, err)
	}

	e.tracking.setEvents("1000000001001U",
		fakeEvent{code: "030103", description: "Zarejestrowano dane przesyłki", at: "2026-11-21 09:00:00"},
		fakeEvent{code: "040101", description: "Przesyłka odebrana przez Kuriera", depot: "Warszawa", country: "PL", at: "2026-11-21 15:30:00"},
		fakeEvent{code: "170102", description: "Przyjęcie przesyłki w oddziale DPD", depot: "Kraków", country: "PL", at: "2026-11-22T06:10:00"},
		fakeEvent{code: "777777", description: "Nowe zdarzenie", at: "2026-11-22 08:00:00"},
		fakeEvent{code: "190101", description: "Przesyłka doręczona", depot: "Kraków", country: "PL", at: "2026-11-22 12:45:00"},
	)
	tr, err = e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "1000000001001U"})
	if err != nil || !tr.Recognized || len(tr.Events) != 5 {
		t.Fatalf("Track: %+v, %v", tr, err)
	}
	want := []carrier.TrackingStatus{carrier.StatusWaitingForShipment, carrier.StatusInTransit, carrier.StatusInTransit, "", carrier.StatusDelivered}
	for i, w := range want {
		if tr.Events[i].Status != w {
			t.Errorf("event %d (%s) → %q, want %q", i, tr.Events[i].Code, tr.Events[i].Status, w)
		}
	}
	last := tr.Events[4]
	if last.Code != "190101" || last.Description != "Przesyłka doręczona" || last.Location != "Kraków (PL)" ||
		!last.At.Equal(time.Date(2026, 11, 22, 11, 45, 0, 0, time.UTC)) {
		t.Errorf("delivered event %+v", last)
	}
	if tr.Events[3].Code != "777777" {
		t.Errorf("an unknown code is not kept raw: %+v", tr.Events[3])
	}
	if at := tr.Events[2].At; !at.Equal(time.Date(2026, 11, 22, 5, 10, 0, 0, time.UTC)) {
		t.Errorf("T-separated time %v", at)
	}
	body := e.tracking.lastBody()
	if body.text("authDataV1/channel") != "1495" || body.text("eventsSelectType") != "ALL" {
		t.Errorf("tracking request %+v", body)
	}

	// Tracking credentials of their own; wrong ones are refused.
	e.tracking.mu.Lock()
	e.tracking.login, e.tracking.password, e.tracking.channel = "info-login", "info-password", "777"
	e.tracking.mu.Unlock()
	rej := rejection(t, trackErr(e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "1000000001001U"})))
	if rej.Field != "password" {
		t.Errorf("wrong tracking credentials: %v", rej)
	}
	e.settings["trackingLogin"], e.settings["trackingPassword"], e.settings["trackingChannel"] = "info-login", "info-password", "777"
	if tr, err := e.c.Track(ctx, e.settings, carrier.TrackingRequest{TrackingNumber: "1000000001001U"}); err != nil || len(tr.Events) != 5 {
		t.Errorf("own tracking credentials: %+v, %v", tr, err)
	}
}

func trackErr(_ carrier.Tracking, err error) error { return err }
