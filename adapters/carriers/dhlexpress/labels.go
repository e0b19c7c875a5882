package dhlexpress

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"shipd/platform/carrier"
)

// document is one entry of the create answer's documents[].
type document struct {
	ImageFormat            string  `json:"imageFormat"`
	Content                string  `json:"content"`
	TypeCode               string  `json:"typeCode"`
	PackageReferenceNumber float64 `json:"packageReferenceNumber,omitempty"`
}

// bookingLabels are the transport labels of a create answer in format: one
// per parcel in parcel order when DHL links each to its piece (or sends one
// per piece), else the one file holding them all (AssumedLabelsPerPiece).
// Other documents (waybill document, invoice, receipt) are not labels.
func bookingLabels(ans shipmentResponse, format string, parcels int) ([]carrier.Label, error) {
	var docs []document
	for _, d := range ans.Documents {
		if d.TypeCode == "label" {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("dhl_express: shipment %s came without a label", ans.ShipmentTrackingNumber)
	}
	if len(docs) != 1 && len(docs) != parcels {
		return nil, fmt.Errorf("dhl_express: shipment %s came with %d labels for %d pieces", ans.ShipmentTrackingNumber, len(docs), parcels)
	}
	out := make([]carrier.Label, len(docs))
	filled := make([]bool, len(docs))
	for i, d := range docs {
		at := i
		if d.PackageReferenceNumber != 0 && len(docs) == parcels {
			at = int(d.PackageReferenceNumber) - 1
		}
		if at < 0 || at >= len(docs) || filled[at] {
			return nil, fmt.Errorf("dhl_express: shipment %s: label %d names piece %v, which fits no parcel", ans.ShipmentTrackingNumber, i+1, d.PackageReferenceNumber)
		}
		// A PDF where a printer language was asked for, or the reverse,
		// would print nothing useful (DHL's names of zpl and epl are not
		// documented, so only PDF is told apart).
		if f := strings.ToLower(strings.TrimSpace(d.ImageFormat)); f != "" && (f == "pdf") != (format == "pdf") {
			return nil, fmt.Errorf("dhl_express: shipment %s: label %d is %s, not the %s asked for", ans.ShipmentTrackingNumber, i+1, d.ImageFormat, format)
		}
		data, err := base64.StdEncoding.DecodeString(d.Content)
		if err != nil {
			return nil, fmt.Errorf("dhl_express: shipment %s: label %d is no base64: %v", ans.ShipmentTrackingNumber, i+1, err)
		}
		out[at], filled[at] = carrier.Label{Format: format, Data: data}, true
	}
	return out, nil
}

// Labels cannot print again: DHL hands out transport labels only in the
// booking's answer (which shipd keeps), and its get-image operation
// returns waybill documents, commercial invoices and customs entries, not
// labels.
func (c *Carrier) Labels(_ context.Context, _ carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	return nil, carrier.Reject("", "DHL Express gives the labels of waybill %s only with the booking: the MyDHL API has no operation "+
		"that prints them again (get-image returns waybill documents and customs papers, not labels)", waybillOf(ref))
}
