package ppl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Labels fetches the labels of a booked batch again, one per parcel in
// parcel order. When the batch's labels are in the other format, the batch's
// labelSettings are changed first (PUT /shipment/batch/{batchId}).
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	if _, ok := labelFormats[format]; !ok {
		return nil, &carrier.Rejection{Field: "label_format", Message: fmt.Sprintf("PPL does not print %q labels (pdf, zpl)", format)}
	}
	if ref.ProviderShipmentID == "" {
		return nil, &carrier.Rejection{Message: "the shipment has no PPL batch"}
	}
	st, err := c.batch(ctx, s, ref.ProviderShipmentID)
	if err != nil {
		return nil, err
	}
	out, err := c.download(ctx, s, st, format)
	if err == nil && (len(out) == 0 || sniff(out[0].Data) == format) {
		return out, err
	}
	if err != nil && !errorsIsWrongFormat(err) {
		return nil, err
	}
	if err := c.relabel(ctx, s, ref.ProviderShipmentID, format); err != nil {
		return nil, err
	}
	st, err = c.waitForBatch(ctx, s, ref.ProviderShipmentID)
	if err != nil {
		return nil, err
	}
	return c.download(ctx, s, st, format)
}

// relabel changes the batch's label format.
func (c *Carrier) relabel(ctx context.Context, s carrier.Settings, batchID, format string) error {
	body, err := json.Marshal(struct {
		LabelSettings labelSettings `json:"labelSettings"`
	}{settingsFor(format)})
	if err != nil {
		return err
	}
	path := "/shipment/batch/" + url.PathEscape(batchID)
	res, err := c.do(ctx, s, call{method: http.MethodPut, url: c.base(s) + path, body: body})
	if err != nil {
		return err
	}
	if res.Status/100 != 2 {
		return answerError("PUT "+path, res)
	}
	return nil
}

// wrongFormat is a downloaded label in another format than asked for.
type wrongFormat struct{ got, want string }

func (e wrongFormat) Error() string {
	return fmt.Sprintf("ppl: label is %s, not %s", e.got, e.want)
}

func errorsIsWrongFormat(err error) bool {
	_, ok := err.(wrongFormat)
	return ok
}

// download fetches every item's label, in item (parcel) order.
func (c *Carrier) download(ctx context.Context, s carrier.Settings, st batchStatus, format string) ([]carrier.Label, error) {
	base, err := url.Parse(c.base(s))
	if err != nil {
		return nil, err
	}
	parcels := st.parcels()
	out := make([]carrier.Label, 0, len(parcels))
	for i, it := range parcels {
		if it.LabelURL == "" {
			return nil, fmt.Errorf("ppl: parcel %d (%s) has no labelUrl", i+1, it.ShipmentNumber)
		}
		u, err := base.Parse(it.LabelURL)
		if err != nil {
			return nil, fmt.Errorf("ppl: parcel %d: bad labelUrl %q: %w", i+1, it.LabelURL, err)
		}
		data, err := c.fetchLabel(ctx, s, base, u)
		if err != nil {
			return nil, err
		}
		if got := sniff(data); got != format {
			return nil, wrongFormat{got: got, want: format}
		}
		out = append(out, carrier.Label{Format: format, Data: data})
	}
	return out, nil
}

// fetchLabel downloads one label file; the Bearer token goes only to PPL's
// own host.
func (c *Carrier) fetchLabel(ctx context.Context, s carrier.Settings, base, u *url.URL) ([]byte, error) {
	cl := call{method: http.MethodGet, url: u.String(), accept: "*/*"}
	var res *carrierhttp.Response
	var err error
	if sameHost(base, u) {
		res, err = c.do(ctx, s, cl)
	} else {
		res, err = c.send(ctx, nil, cl)
	}
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, answerError("GET "+u.Path, res)
	}
	return res.Body, nil
}

func sameHost(a, b *url.URL) bool { return a.Scheme == b.Scheme && a.Host == b.Host }

// sniff names the format of a label file: pdf, zpl or "unknown".
func sniff(data []byte) string {
	d := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(d, []byte("%PDF")):
		return "pdf"
	case bytes.HasPrefix(d, []byte("^XA")) || bytes.HasPrefix(d, []byte("~")) || bytes.Contains(d[:min(len(d), 64)], []byte("^XA")):
		return "zpl"
	}
	return "unknown"
}
