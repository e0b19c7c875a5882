package inpost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The fake holds requests to testdata/shipx.yaml with every object closed:
// a misspelt optional attribute, which ShipX would not read, is refused
// instead of passing unnoticed; so is a value outside a documented enum.
func TestFakeRefusesMisspeltOptionalFields(t *testing.T) {
	f := newFake(t)
	s := settingsFor(f)
	s["sendingMethod"] = "parcel_locker"
	if _, err := newCarrier(f).CreateShipment(context.Background(), s, courierRequest()); err != nil {
		t.Fatal(err)
	}
	sent := f.creates[0]
	for _, tc := range []struct {
		name, field string
		spoil       func(body map[string]any)
	}{
		{"top level", "refrence", func(b map[string]any) { b["refrence"] = b["reference"]; delete(b, "reference") }},
		{"nested", "target_piont", func(b map[string]any) {
			b["custom_attributes"].(map[string]any)["target_piont"] = "KRA010"
		}},
		{"in a parcel", "is_nonstandard", func(b map[string]any) {
			b["parcels"].([]any)[1].(map[string]any)["is_nonstandard"] = true
		}},
		{"in an address", "flat_number", func(b map[string]any) {
			b["receiver"].(map[string]any)["address"].(map[string]any)["flat_number"] = "3"
		}},
		{"an enum", "sending_method", func(b map[string]any) {
			b["custom_attributes"].(map[string]any)["sending_method"] = "locker"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			raw, _ := json.Marshal(sent)
			_ = json.Unmarshal(raw, &body)
			tc.spoil(body)
			var reported []string
			f.set(func(f *fakeShipX) {
				f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			})
			status := post(t, f, body)
			if status != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], tc.field) {
				t.Errorf("HTTP %d, reported %q; want 400 naming %s", status, reported, tc.field)
			}
		})
	}
	// The body the adapter sent passes as it is.
	f.set(func(f *fakeShipX) { f.report = t.Errorf })
	if status := post(t, f, sent); status != http.StatusCreated {
		t.Errorf("the adapter's own body: HTTP %d", status)
	}
}

func post(t *testing.T, f *fakeShipX, body map[string]any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.URL()+"/v1/organizations/"+f.org+"/shipments", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+f.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
