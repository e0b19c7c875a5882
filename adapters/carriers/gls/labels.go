package gls

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"shipd/platform/carrier"
)

// glsLabelFormat is GLS's LabelFormat and TemplateSet for a shipd format.
func glsLabelFormat(format string) (labelFormat, templateSet string, ok bool) {
	switch format {
	case "pdf":
		return "PDF", TemplateSetPDF, true
	case "zpl":
		return "ZEBRA", TemplateSetZPL, true
	}
	return "", "", false
}

// document is one PrintData entry. shipit-farm.yaml types Data as an array
// of base64 strings, while the response GLS's ShipIT docs describe carries
// one base64 string; both are read, parts concatenated.
type document struct {
	Data        printData `json:"Data"`
	LabelFormat string    `json:"LabelFormat"`
}

type printData []byte

func (p *printData) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		d, err := base64.StdEncoding.DecodeString(one)
		*p = d
		return err
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("PrintData.Data is neither a string nor an array of strings")
	}
	var out bytes.Buffer
	for _, s := range many {
		d, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return err
		}
		out.Write(d)
	}
	*p = out.Bytes()
	return nil
}

// documentLabels turns PrintData into labels of format, in GLS's order.
func documentLabels(docs []document, format string) ([]carrier.Label, error) {
	want, _, _ := glsLabelFormat(format)
	var out []carrier.Label
	for i, d := range docs {
		if !strings.EqualFold(d.LabelFormat, want) {
			return nil, fmt.Errorf("gls: asked for %s labels, PrintData %d is %s", want, i, d.LabelFormat)
		}
		if len(d.Data) == 0 {
			return nil, fmt.Errorf("gls: PrintData %d is empty", i)
		}
		out = append(out, carrier.Label{Format: format, Data: []byte(d.Data)})
	}
	return out, nil
}

type reprintRequest struct {
	TrackID         string          `json:"TrackID"`
	PrintingOptions printingOptions `json:"PrintingOptions"`
}

// Labels prints every parcel's label again with POST
// /rs/shipments/reprintparcel, one call per TrackID, in parcel order.
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	e := c.env(s)
	format = s.LabelFormat(format)
	glsFormat, template, ok := glsLabelFormat(format)
	if !ok {
		return nil, &carrier.Rejection{Field: "label_format", Message: fmt.Sprintf("GLS prints pdf and zpl labels, not %q", format)}
	}
	ids, err := trackIDs(ref)
	if err != nil {
		return nil, err
	}
	var out []carrier.Label
	for _, id := range ids {
		raw, _ := json.Marshal(reprintRequest{TrackID: id,
			PrintingOptions: printingOptions{ReturnLabels: returnLabels{TemplateSet: template, LabelFormat: glsFormat}}})
		res, err := c.call(ctx, e, http.MethodPost, e.base+"/rs/shipments/reprintparcel", MediaType, raw)
		if err != nil {
			return nil, err
		}
		if res.Status != http.StatusOK {
			return nil, shipitError("reprinting parcel "+id, res)
		}
		var r createdResponse
		if err := json.Unmarshal(res.Body, &r); err != nil {
			return nil, fmt.Errorf("gls: reading the reprint of %s: %w", id, err)
		}
		var docs []document
		if len(r.CreatedShipment.PrintData) > 0 {
			if err := json.Unmarshal(r.CreatedShipment.PrintData, &docs); err != nil {
				return nil, fmt.Errorf("gls: reading the reprint of %s: %w", id, err)
			}
		}
		labels, err := documentLabels(docs, format)
		if err != nil {
			return nil, err
		}
		if len(labels) == 0 {
			return nil, fmt.Errorf("gls: reprint of %s came without PrintData", id)
		}
		out = append(out, labels...)
	}
	return out, nil
}
