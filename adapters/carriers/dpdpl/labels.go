package dpdpl

import (
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"strings"

	"shipd/platform/carrier"
)

// generateSpedLabelsV4 and its types [C].
type (
	labelsRequest struct {
		XMLName    xml.Name       `xml:"dpd:generateSpedLabelsV4"`
		Params     servicesParams `xml:"dpdServicesParamsV1"`
		DocFormat  string         `xml:"outputDocFormatV1"`
		PageFormat string         `xml:"outputDocPageFormatV1"`
		LabelType  string         `xml:"outputLabelType"`
		Auth       authData       `xml:"authDataV1"`
	}
	servicesParams struct {
		Policy  string        `xml:"policy"`
		Session labelsSession `xml:"session"`
	}
	labelsSession struct {
		Packages    []labelsPackage `xml:"packages"`
		SessionType string          `xml:"sessionType"`
	}
	labelsPackage struct {
		PackageID string        `xml:"packageId,omitempty"`
		Parcels   []labelParcel `xml:"parcels"`
	}
	labelParcel struct {
		Waybill string `xml:"waybill"`
	}
)

func (*labelsRequest) operationName() string { return "generateSpedLabelsV4" }

// The answer: documentGenerationResponseV1 [C].
type (
	labelsResponse struct {
		Return struct {
			DocumentData string `xml:"documentData"`
			DocumentID   string `xml:"documentId"`
			Session      struct {
				StatusInfo statusInfo            `xml:"statusInfo"`
				Packages   []labelsPackageStatus `xml:"packages"`
			} `xml:"session"`
		} `xml:"return"`
	}
	labelsPackageStatus struct {
		StatusInfo statusInfo `xml:"statusInfo"`
		Parcels    []struct {
			Waybill    string     `xml:"waybill"`
			StatusInfo statusInfo `xml:"statusInfo"`
		} `xml:"parcels"`
	}
	statusInfo struct {
		Status      string `xml:"status"`
		Description string `xml:"description"`
	}
)

// wrongSessionType is DPD saying a package is not of the session type asked
// (StatusDGREnumV1).
const wrongSessionType = "INCORRECT_PKGS_FOR_SESSION_TYPE"

// Labels prints the shipment's parcels by waybill in format: one file holding
// every parcel's label, in parcel order, as DPD gives it. A package DPD says
// is not domestic is printed again as INTERNATIONAL.
func (c *Carrier) Labels(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
	format = s.LabelFormat(format)
	docFormat, ok := labelFormats[format]
	if !ok {
		return nil, carrier.Reject("label_format", "DPD Poland prints pdf, zpl and epl labels, not %q", format)
	}
	if len(ref.TrackingNumbers) == 0 {
		return nil, carrier.Reject("", "the shipment has no DPD waybills to print")
	}
	auth, err := authOf(s)
	if err != nil {
		return nil, err
	}
	pkg := labelsPackage{}
	for _, w := range ref.TrackingNumbers {
		pkg.Parcels = append(pkg.Parcels, labelParcel{Waybill: w})
	}
	var data []byte
	for _, session := range []string{"DOMESTIC", "INTERNATIONAL"} {
		var out labelsResponse
		err := c.call(ctx, c.base(s), packageNS, &labelsRequest{
			Params: servicesParams{
				Policy:  "STOP_ON_FIRST_ERROR",
				Session: labelsSession{Packages: []labelsPackage{pkg}, SessionType: session},
			},
			DocFormat:  docFormat,
			PageFormat: "LBL_PRINTER",
			LabelType:  "BIC3",
			Auth:       auth,
		}, &out)
		if err != nil {
			return nil, faultError(err, "label request")
		}
		st := out.Return.Session.StatusInfo
		if st.Status == wrongSessionType && session == "DOMESTIC" {
			continue
		}
		if st.Status != statusOK {
			return nil, labelsRejection(out)
		}
		data, err = base64.StdEncoding.DecodeString(strings.TrimSpace(out.Return.DocumentData))
		if err != nil || len(data) == 0 {
			return nil, fmt.Errorf("dpd_pl: generateSpedLabelsV4: documentData is not a document: %v", err)
		}
		break
	}
	if data == nil {
		return nil, carrier.Reject("", "DPD Poland printed no labels: neither a domestic nor an international session takes the parcels")
	}
	return []carrier.Label{{Format: format, Data: data}}, nil
}

// labelsRejection names what DPD said of the session and of each parcel.
func labelsRejection(out labelsResponse) error {
	var msgs []string
	for _, p := range out.Return.Session.Packages {
		for _, parcel := range p.Parcels {
			if parcel.StatusInfo.Status != "" && parcel.StatusInfo.Status != statusOK {
				msgs = append(msgs, parcel.Waybill+": "+describe(parcel.StatusInfo))
			}
		}
	}
	msg := describe(out.Return.Session.StatusInfo)
	if len(msgs) > 0 {
		msg += " (" + strings.Join(msgs, "; ") + ")"
	}
	return carrier.Reject("", "DPD Poland printed no labels: %s", msg)
}

func describe(s statusInfo) string {
	if s.Description != "" && s.Description != s.Status {
		return s.Status + ": " + s.Description
	}
	return s.Status
}
