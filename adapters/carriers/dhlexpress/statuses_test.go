package dhlexpress

import (
	"testing"

	"shipd/platform/carrier"
)

// dhlEventCodes reads DHL's checkpoint codes from its OpenAPI file: the
// trackingEventCode reference data of GET /reference-data's example (each
// row's eventTypeCode attribute), not from the adapter's table.
func dhlEventCodes(t *testing.T) []string {
	t.Helper()
	doc := docOf(t)
	ex := doc.Paths.Find("/reference-data").Get.Responses.Status(200).Value.Content.Get("application/json").
		Examples["Sample Reference Data - tracking event code"]
	if ex == nil || ex.Value == nil {
		t.Fatal("DHL's file has no tracking event code example")
	}
	var codes []string
	for _, set := range ex.Value.Value.(map[string]any)["referenceData"].([]any) {
		set := set.(map[string]any)
		if set["datasetName"] != "trackingEventCode" {
			continue
		}
		for _, row := range set["data"].([]any) {
			for _, attr := range row.([]any) {
				attr := attr.(map[string]any)
				if attr["attribute"] == "eventTypeCode" {
					codes = append(codes, attr["value"].(string))
				}
			}
		}
	}
	return codes
}

func TestStatusTableCoversEveryDHLCode(t *testing.T) {
	codes := dhlEventCodes(t)
	if len(codes) != 62 {
		t.Errorf("%d codes in DHL's trackingEventCode data, want 62", len(codes))
	}
	documented := map[string]bool{}
	for _, c := range codes {
		if documented[c] {
			t.Errorf("code %s listed twice", c)
		}
		documented[c] = true
		status, mapped := statusTable[c]
		_, skipped := unmapped[c]
		switch {
		case mapped == skipped:
			t.Errorf("code %s: in the table %v, deliberately unmapped %v: want exactly one", c, mapped, skipped)
		case mapped && !status.Valid():
			t.Errorf("code %s maps to non-standard %q", c, status)
		}
	}
	for c := range statusTable {
		if !documented[c] {
			t.Errorf("the table maps %s, which DHL does not list", c)
		}
	}
	for c := range unmapped {
		if !documented[c] {
			t.Errorf("unmapped %s is no DHL code", c)
		}
	}
	// The codes of DHL's own tracking example mean what their descriptions say.
	for code, want := range map[string]carrier.TrackingStatus{
		"PU": carrier.StatusInTransit, "AF": carrier.StatusInTransit, "PL": carrier.StatusInTransit, "DF": carrier.StatusInTransit,
		"RR": carrier.StatusInTransit, "CR": carrier.StatusInTransit, "AR": carrier.StatusInTransit,
		"WC": carrier.StatusOutForDelivery, "OK": carrier.StatusDelivered, "RT": carrier.StatusReturned, "CC": carrier.StatusReadyForPickup,
	} {
		if got := statusTable.Status(code); got != want {
			t.Errorf("%s maps to %q, want %q", code, got, want)
		}
	}
}
