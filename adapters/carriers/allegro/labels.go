package allegro

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// labelRequest is Allegro's LabelRequestDto [V].
type labelRequest struct {
	ShipmentIDs []string `json:"shipmentIds"`
	PageSize    string   `json:"pageSize,omitempty"`
}

// Labels fetches the shipment's labels: one file holding every package's
// label, in the format the shipment was created with (Allegro's label
// resource takes no format [V]). Asked for another format it is a
// Rejection saying which one the shipment has.
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	format = s.LabelFormat(format)
	if _, ok := labelFormats[format]; !ok {
		return nil, carrier.Reject("label_format", "Allegro prints pdf and zpl labels, not %q", format)
	}
	if ref.ProviderShipmentID == "" {
		return nil, carrier.Reject("", "the shipment has no Allegro shipment id")
	}
	req := labelRequest{ShipmentIDs: []string{ref.ProviderShipmentID}}
	if format == "pdf" {
		req.PageSize = "A6" // 10×15 cm, one label a page (pageSize is for PDF only [V])
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	const path = shipmentsBase + "/label"
	res, err := c.call(ctx, s, request{method: http.MethodPost, url: c.apiHost(s) + path, body: body,
		accept: "application/octet-stream, " + mediaType})
	if err != nil {
		return nil, err
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusNoContent:
		// "No label for given parcel" [V]: not printed yet; asked again later.
		return nil, carrierhttp.Unavailable("POST %s: Allegro has no label for shipment %s yet", path, ref.ProviderShipmentID)
	default:
		return nil, answerError("POST "+path, res.Status, res.Body, "")
	}
	if got := sniff(res.Body); got != format {
		return nil, carrier.Reject("label_format", "Allegro prints the labels of shipment %s as %s, the format chosen when it was booked, not %s", ref.ProviderShipmentID, got, format)
	}
	return []carrier.Label{{Format: format, Data: res.Body}}, nil
}

// sniff names the format of a label file: pdf, zpl or "unknown".
func sniff(data []byte) string {
	d := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(d, []byte("%PDF")):
		return "pdf"
	case bytes.Contains(d[:min(len(d), 64)], []byte("^XA")):
		return "zpl"
	}
	return "unknown"
}
