package inpost

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

// TestStatusTable takes ShipX's statuses from testdata/shipx-statuses.txt
// (the names GET /v1/statuses answers) and holds the table to them: every
// status mapped as expected here or deliberately unmapped with a reason,
// nothing mapped that ShipX does not have.
func TestStatusTable(t *testing.T) {
	want := map[string]carrier.TrackingStatus{
		"created": carrier.StatusCreated, "offers_prepared": carrier.StatusCreated, "offer_selected": carrier.StatusCreated,
		"confirmed": carrier.StatusWaitingForShipment,

		"dispatched_by_sender": carrier.StatusInTransit, "dispatched_by_sender_to_pok": carrier.StatusInTransit,
		"collected_from_sender": carrier.StatusInTransit, "taken_by_courier": carrier.StatusInTransit,
		"taken_by_courier_from_pok": carrier.StatusInTransit, "taken_by_courier_from_customer_service_point": carrier.StatusInTransit,
		"adopted_at_source_branch": carrier.StatusInTransit, "sent_from_source_branch": carrier.StatusInTransit,
		"adopted_at_sorting_center": carrier.StatusInTransit, "sent_from_sorting_center": carrier.StatusInTransit,
		"adopted_at_target_branch": carrier.StatusInTransit, "readdressed": carrier.StatusInTransit,
		"redirect_to_box": carrier.StatusInTransit, "canceled_redirect_to_box": carrier.StatusInTransit,
		"unstack_from_box_machine": carrier.StatusInTransit, "unstack_from_customer_service_point": carrier.StatusInTransit,
		"delay_in_delivery": carrier.StatusInTransit,

		"out_for_delivery": carrier.StatusOutForDelivery, "out_for_delivery_to_address": carrier.StatusOutForDelivery,

		"ready_to_pickup": carrier.StatusReadyForPickup, "ready_to_pickup_from_pok": carrier.StatusReadyForPickup,
		"ready_to_pickup_from_pok_registered": carrier.StatusReadyForPickup, "ready_to_pickup_from_branch": carrier.StatusReadyForPickup,
		"stack_in_box_machine": carrier.StatusReadyForPickup, "stack_in_customer_service_point": carrier.StatusReadyForPickup,
		"courier_avizo_in_customer_service_point": carrier.StatusReadyForPickup,
		"pickup_reminder_sent":                    carrier.StatusReadyForPickup, "pickup_reminder_sent_address": carrier.StatusReadyForPickup,

		"delivered": carrier.StatusDelivered,

		"avizo": carrier.StatusDeliveryFailed, "pickup_time_expired": carrier.StatusDeliveryFailed,
		"stack_parcel_pickup_time_expired":                carrier.StatusDeliveryFailed,
		"stack_parcel_in_box_machine_pickup_time_expired": carrier.StatusDeliveryFailed,
		"rejected_by_receiver":                            carrier.StatusDeliveryFailed, "undelivered": carrier.StatusDeliveryFailed,
		"undelivered_wrong_address": carrier.StatusDeliveryFailed, "undelivered_incomplete_address": carrier.StatusDeliveryFailed,
		"undelivered_unknown_receiver": carrier.StatusDeliveryFailed, "undelivered_cod_cash_receiver": carrier.StatusDeliveryFailed,
		"undelivered_no_mailbox": carrier.StatusDeliveryFailed, "undelivered_not_live_address": carrier.StatusDeliveryFailed,
		"undelivered_lack_of_access_letterbox": carrier.StatusDeliveryFailed,

		"returned_to_sender": carrier.StatusReturned, "return_pickup_confirmation_to_sender": carrier.StatusReturned,
		"canceled": carrier.StatusCancelled,
		"missing":  carrier.StatusOnHold, "claimed": carrier.StatusOnHold, "oversized": carrier.StatusOnHold,

		"other": "", // deliberately unmapped (unmappedStatuses)
	}
	raw, err := os.ReadFile("testdata/shipx-statuses.txt")
	if err != nil {
		t.Fatal(err)
	}
	shipx := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			shipx[line] = true
		}
	}
	if len(shipx) != 53 {
		t.Fatalf("%d ShipX statuses in testdata, want 53", len(shipx))
	}
	for code := range shipx {
		status, ok := want[code]
		if !ok {
			t.Errorf("ShipX status %s has no expectation in this test", code)
			continue
		}
		if got := Statuses.Status(code); got != status {
			t.Errorf("%s → %q, want %q", code, got, status)
		}
		_, mapped := Statuses[code]
		reason, unmapped := unmappedStatuses[code]
		switch {
		case mapped == unmapped:
			t.Errorf("%s: mapped %v, listed unmapped %v; want exactly one", code, mapped, unmapped)
		case unmapped && reason == "":
			t.Errorf("%s is unmapped without a reason", code)
		case mapped && !status.Valid():
			t.Errorf("%s: %q is not a standard status", code, status)
		}
	}
	for code := range want {
		if !shipx[code] {
			t.Errorf("this test expects %s, which ShipX does not list", code)
		}
	}
	for code := range Statuses {
		if !shipx[code] {
			t.Errorf("the table maps %s, which ShipX does not list", code)
		}
	}
	for code := range unmappedStatuses {
		if !shipx[code] {
			t.Errorf("%s is listed unmapped but ShipX does not list it", code)
		}
	}
}

func TestTrack(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	const number = "620000000000000000000777"
	f.tracking[number] = []fakeEvent{
		{"confirmed", "", at(0)},
		{"collected_from_sender", "WAW01", at(60)},
		{"adopted_at_sorting_center", "KRA01", at(600)},
		{"made_up_status", "", at(650)},
		{"other", "", at(660)},
		{"out_for_delivery", "KRA01", at(900)},
		{"delivered", "KRA01", at(1000)},
	}
	tr, err := c.Track(context.Background(), s, carrier.TrackingRequest{TrackingNumber: number})
	if err != nil || !tr.Recognized {
		t.Fatalf("Track = %+v, %v", tr, err)
	}
	if len(tr.Events) != 7 {
		t.Fatalf("%d events, want 7", len(tr.Events))
	}
	byCode := map[string]carrier.TrackingEvent{}
	for _, e := range tr.Events {
		byCode[e.Code] = e
	}
	d := byCode["delivered"]
	if d.Status != carrier.StatusDelivered || d.Location != "KRA01" || d.Description != "delivered" ||
		!d.At.Equal(time.Date(2026, 11, 22, 1, 40, 0, 0, time.UTC)) {
		t.Errorf("delivered event %+v", d)
	}
	if e := byCode["collected_from_sender"]; e.Status != carrier.StatusInTransit || e.Location != "WAW01" {
		t.Errorf("collected event %+v", e)
	}
	for _, code := range []string{"made_up_status", "other"} {
		if e, ok := byCode[code]; !ok || e.Status != "" {
			t.Errorf("%s: %+v, want kept with no status", code, e)
		}
	}

	tr, err = c.Track(context.Background(), s, carrier.TrackingRequest{TrackingNumber: "000000000000000000000000"})
	if err != nil || tr.Recognized || len(tr.Events) != 0 {
		t.Errorf("unknown number: %+v, %v", tr, err)
	}
}
