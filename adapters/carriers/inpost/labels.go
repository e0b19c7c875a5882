package inpost

import (
	"context"
	"net/http"
	"net/url"

	"shipd/platform/carrier"
)

// labelFormats are ShipX's names of the formats it prints.
var labelFormats = map[string]string{"pdf": "Pdf", "zpl": "Zpl", "epl": "Epl"}

// Labels fetches the shipment's label: one A6 file holding every parcel,
// in parcel order, in format (else the channel's defaultLabelFormat, else pdf).
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	if err := checkSettings(s); err != nil {
		return nil, err
	}
	format = s.LabelFormat(format)
	vendor, ok := labelFormats[format]
	if !ok {
		return nil, &carrier.Rejection{Field: "label_format", Message: "InPost prints pdf, zpl or epl labels, not " + format}
	}
	q := url.Values{"format": {vendor}, "type": {labelType}}
	res, err := c.do(ctx, s, http.MethodGet, "/v1/shipments/"+url.PathEscape(ref.ProviderShipmentID)+"/label?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, apiError(res, "")
	}
	return []carrier.Label{{Format: format, Data: res.Body}}, nil
}
