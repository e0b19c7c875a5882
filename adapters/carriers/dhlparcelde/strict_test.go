package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"shipd/platform/carrier"
)

// The fake holds requests to DHL's file with every object closed
// (vendorspec): a misspelt optional field, which DHL would not read, is
// refused instead of passing unnoticed. (It found the shipper's phone, a
// property DHL's Shipper does not have, which the adapter sent before.)
func TestFakeRefusesMisspeltOptionalFields(t *testing.T) {
	f := newFake(t)
	req := request(carrier.Parcel{Length: 30, Width: 20, Height: 10, DimensionUnit: "CM", Weight: 1, WeightUnit: "KG"})
	order, err := buildOrder(testSettings(), req, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := json.Marshal(order)
	var plain struct {
		Shipments []struct{ Shipper map[string]any } `json:"shipments"`
	}
	if err := json.Unmarshal(sent, &plain); err != nil || plain.Shipments[0].Shipper["phone"] != nil {
		t.Errorf("the shipper goes out with a phone: %s", sent)
	}
	tok, err := f.carrier().token(context.Background(), testSettings())
	if err != nil {
		t.Fatal(err)
	}
	shipment := func(b map[string]any) map[string]any { return b["shipments"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		name, field string
		spoil       func(body map[string]any)
	}{
		{"in a shipment", "refNumber", func(b map[string]any) { shipment(b)["refNumber"] = "ORDER-1" }},
		{"in the consignee", "phoneNumber", func(b map[string]any) {
			c := shipment(b)["consignee"].(map[string]any)
			c["phoneNumber"] = c["phone"]
			delete(c, "phone")
		}},
		{"in the details", "weigth", func(b map[string]any) { shipment(b)["details"].(map[string]any)["weigth"] = 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			if err := json.Unmarshal(sent, &body); err != nil {
				t.Fatal(err)
			}
			tc.spoil(body)
			var reported []string
			f.report = func(format string, args ...any) { reported = append(reported, fmt.Sprintf(format, args...)) }
			if status := postOrder(t, f, tok.AccessToken, body); status != http.StatusBadRequest || len(reported) != 1 || !strings.Contains(reported[0], tc.field) {
				t.Errorf("HTTP %d, reported %q; want 400 naming %s", status, reported, tc.field)
			}
		})
	}
	f.report = t.Errorf
	var body map[string]any
	_ = json.Unmarshal(sent, &body)
	if status := postOrder(t, f, tok.AccessToken, body); status != http.StatusOK {
		t.Errorf("the adapter's own order: HTTP %d", status)
	}
}

func postOrder(t *testing.T, f *fake, token string, body map[string]any) int {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+shippingBase+"/orders", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("dhl-api-key", testClientID)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
