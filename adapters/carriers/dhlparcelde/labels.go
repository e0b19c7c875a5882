package dhlparcelde

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"

	"shipd/platform/carrier"
)

// labelOf is an item's shipping label in format; ok is false when the item
// carries none (DHL answered with a URL only, or nothing).
func labelOf(it responseItem, format string) (carrier.Label, bool, error) {
	if it.Label == nil {
		return carrier.Label{}, false, nil
	}
	switch format {
	case "pdf":
		if it.Label.B64 == "" {
			return carrier.Label{}, false, nil
		}
		data, err := base64.StdEncoding.DecodeString(it.Label.B64)
		if err != nil {
			return carrier.Label{}, false, fmt.Errorf("dhl_parcel_de: label of %s: bad base64: %v", it.ShipmentNo, err)
		}
		return carrier.Label{Format: format, Data: data}, true, nil
	case "zpl":
		if it.Label.ZPL2 == "" {
			return carrier.Label{}, false, nil
		}
		return carrier.Label{Format: format, Data: []byte(it.Label.ZPL2)}, true, nil
	}
	return carrier.Label{}, false, nil
}

// Labels fetches the labels of every parcel again (GET /orders), one per
// parcel in parcel order.
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	if err := checkCredentials(s); err != nil {
		return nil, err
	}
	format = s.LabelFormat(format)
	doc, ok := docFormat(format)
	if !ok {
		return nil, carrier.Reject("label_format", "DHL Parcel DE prints labels as pdf or zpl, not %q", format)
	}
	nums := numbers(ref)
	if len(nums) == 0 {
		return nil, carrier.Reject("", "the shipment has no DHL shipment numbers")
	}
	q := url.Values{"shipment": nums, "docFormat": {doc}, "includeDocs": {"include"}}
	u := c.apiHost(s) + shippingBase + "/orders?" + q.Encode()
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodGet, u, nil) })
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK && res.Status != http.StatusMultiStatus {
		return nil, answerError(res.Status, res.Body, "label request")
	}
	ld, err := decodeLabelData(res.Body, "labels")
	if err != nil {
		return nil, err
	}
	if err := carrier.RejectionOf(itemRejections(ld.Items)); err != nil {
		return nil, err
	}
	byNumber := map[string]responseItem{}
	for _, it := range ld.Items {
		byNumber[it.ShipmentNo] = it
	}
	out := make([]carrier.Label, 0, len(nums))
	for _, n := range nums {
		it, found := byNumber[n]
		if !found {
			return nil, fmt.Errorf("dhl_parcel_de: labels: no answer for shipment %s", n)
		}
		l, ok, err := labelOf(it, format)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("dhl_parcel_de: labels: shipment %s came without a %s label", n, format)
		}
		out = append(out, l)
	}
	return out, nil
}
