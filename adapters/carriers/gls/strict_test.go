package gls

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The fake holds requests to GLS's files with every object closed
// (vendorspec): a misspelt optional field, which ShipIT would not read, is
// refused instead of passing unnoticed.
func TestFakeRefusesMisspeltOptionalFields(t *testing.T) {
	f := newFake(t)
	if _, err := f.carrier().CreateShipment(context.Background(), f.settings(), request("order-1")); err != nil {
		t.Fatal(err)
	}
	sent := f.lastBody("create")
	for _, tc := range []struct {
		name, field string
		spoil       func(body map[string]any)
	}{
		{"top level", "PrintingOption", func(b map[string]any) { b["PrintingOption"] = b["PrintingOptions"] }},
		{"nested", "ShipmentReferences", func(b map[string]any) {
			sh := b["Shipment"].(map[string]any)
			sh["ShipmentReferences"] = sh["ShipmentReference"]
			delete(sh, "ShipmentReference")
		}},
		{"in an address", "ZipCode", func(b map[string]any) {
			a := b["Shipment"].(map[string]any)["Consignee"].(map[string]any)["Address"].(map[string]any)
			a["ZipCode"] = a["Zipcode"]
			delete(a, "Zipcode")
		}},
		{"in a unit", "Weigth", func(b map[string]any) {
			b["Shipment"].(map[string]any)["ShipmentUnit"].([]any)[1].(map[string]any)["Weigth"] = 1.0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			if err := json.Unmarshal(sent, &body); err != nil {
				t.Fatal(err)
			}
			tc.spoil(body)
			var reported []string
			f.mu.Lock()
			f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			f.mu.Unlock()
			if status := postShipment(t, f, body); status != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], tc.field) {
				t.Errorf("HTTP %d, reported %q; want 400 naming %s", status, reported, tc.field)
			}
		})
	}
	// The adapter's own body passes the document (and then meets the
	// fake's token check).
	f.mu.Lock()
	f.report = t.Errorf
	f.mu.Unlock()
	var body map[string]any
	_ = json.Unmarshal(sent, &body)
	if status := postShipment(t, f, body); status != http.StatusUnauthorized {
		t.Errorf("the adapter's own body: HTTP %d, want 401 for the made-up token", status)
	}
}

func postShipment(t *testing.T, f *fake, body map[string]any) int {
	t.Helper()
	return postShipIT(t, f, "/rs/shipments", body)
}

// postShipIT posts body to a ShipIT path of the sandbox with a made-up
// token, and answers the status.
func postShipIT(t *testing.T, f *fake, path string, body map[string]any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/sandbox/shipit-farm/v1/backend"+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer made-up")
	req.Header.Set("Content-Type", MediaType)
	req.Header.Set("Accept", MediaType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
