package dpdpl

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"strings"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// generateProtocolV2 [V wsdl; C axis, t3ko]: the handover protocol of
// waybills, the same parameters as the labels call plus where the courier
// takes them over.
type (
	protocolRequest struct {
		XMLName    xml.Name       `xml:"dpd:generateProtocolV2"`
		Params     protocolParams `xml:"dpdServicesParamsV1"`
		DocFormat  string         `xml:"outputDocFormatV1"`
		PageFormat string         `xml:"outputDocPageFormatV1"`
		Auth       authData       `xml:"authDataV1"`
	}
	protocolParams struct {
		PickupAddress *pickupAddress `xml:"pickupAddress,omitempty"`
		Policy        string         `xml:"policy"`
		Session       labelsSession  `xml:"session"`
	}
	// pickupAddress is pickupAddressDSPV1, the sender's address with its fid.
	pickupAddress struct {
		Address     string `xml:"address"`
		City        string `xml:"city"`
		Company     string `xml:"company,omitempty"`
		CountryCode string `xml:"countryCode"`
		Email       string `xml:"email,omitempty"`
		Fid         int64  `xml:"fid"`
		Name        string `xml:"name,omitempty"`
		Phone       string `xml:"phone,omitempty"`
		PostalCode  string `xml:"postalCode"`
	}
)

func (*protocolRequest) operationName() string { return "generateProtocolV2" }

// CreateManifest hands the shipments over with DPD's protocol: a PDF on A4
// listing their waybills, which DPD answers (documentData) with its
// documentId. As DPD Polska's module does [Vp], there is one protocol per
// session type, the domestic shipments' and the international ones'
// (destination outside Poland), each from the sender's address, policy
// STOP_ON_FIRST_ERROR so that a protocol never leaves a parcel out. A
// session of more than maxProtocolParcels parcels is asked for in chunks of
// whole shipments. The protocols come back as one PDF, in that order, and
// their documentIds, comma-separated, are the reference. A waybill DPD does
// not know or has on a protocol already (ALREADY_ADVICED [U]) is a
// *carrier.Rejection on shipment_ids; protocols made before it stay made
// (DPD has no operation that reads or withdraws one).
func (c *Carrier) CreateManifest(ctx context.Context, s carrier.Settings, req carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	auth, err := authOf(s)
	if err != nil {
		return carrier.CarrierManifest{}, err
	}
	if len(req.Shipments) == 0 {
		return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldShipments, "a DPD protocol lists at least one shipment")
	}
	var domestic, international []carrier.DispatchShipment
	for _, sh := range req.Shipments {
		if len(sh.TrackingNumbers) == 0 {
			return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has no DPD waybills to hand over", sh.ShipmentID)
		}
		if c := strings.ToUpper(strings.TrimSpace(sh.Destination.CountryCode)); c == "" || c == "PL" {
			domestic = append(domestic, sh)
		} else {
			international = append(international, sh)
		}
	}
	var address *pickupAddress
	if o := req.Origin; strings.TrimSpace(o.StreetName) != "" {
		a := addressOf(req.Sender, o)
		address = &pickupAddress{Address: a.Address, City: a.City, Company: a.Company, CountryCode: a.CountryCode, Email: a.Email,
			Fid: auth.MasterFid, Name: a.Name, Phone: a.Phone, PostalCode: a.PostalCode}
	}
	var docs [][]byte
	var refs []string
	for _, session := range []struct {
		typ       string
		shipments []carrier.DispatchShipment
	}{{"DOMESTIC", domestic}, {"INTERNATIONAL", international}} {
		for _, chunk := range protocolChunks(session.shipments) {
			doc, ref, err := c.protocol(ctx, s, auth, address, session.typ, chunk)
			if err != nil {
				return carrier.CarrierManifest{}, err
			}
			docs, refs = append(docs, doc), append(refs, ref)
		}
	}
	doc := docs[0]
	if len(docs) > 1 {
		if doc, err = labels.Merge("pdf", docs); err != nil {
			return carrier.CarrierManifest{}, fmt.Errorf("dpd_pl: merging DPD's %d protocols: %w", len(docs), err)
		}
	}
	return carrier.CarrierManifest{Reference: strings.Join(refs, ","), Document: doc}, nil
}

// protocolChunks splits shipments into runs of at most maxProtocolParcels
// parcels, a shipment's parcels never split (one bigger than the limit goes
// alone).
func protocolChunks(shipments []carrier.DispatchShipment) [][]carrier.DispatchShipment {
	var out [][]carrier.DispatchShipment
	var cur []carrier.DispatchShipment
	n := 0
	for _, sh := range shipments {
		if k := len(sh.TrackingNumbers); len(cur) > 0 && n+k > maxProtocolParcels {
			out, cur, n = append(out, cur), nil, 0
		}
		cur = append(cur, sh)
		n += len(sh.TrackingNumbers)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// protocol asks DPD for one protocol of the shipments' waybills, a package
// per shipment.
func (c *Carrier) protocol(ctx context.Context, s carrier.Settings, auth authData, address *pickupAddress, session string, shipments []carrier.DispatchShipment) ([]byte, string, error) {
	sess := labelsSession{SessionType: session}
	for _, sh := range shipments {
		pkg := labelsPackage{}
		for _, w := range sh.TrackingNumbers {
			pkg.Parcels = append(pkg.Parcels, labelParcel{Waybill: w})
		}
		sess.Packages = append(sess.Packages, pkg)
	}
	var out labelsResponse
	err := c.call(ctx, c.base(s), packageNS, &protocolRequest{
		Params:     protocolParams{PickupAddress: address, Policy: "STOP_ON_FIRST_ERROR", Session: sess},
		DocFormat:  "PDF",
		PageFormat: "A4",
		Auth:       auth,
	}, &out)
	if err != nil {
		return nil, "", faultError(err, "protocol request")
	}
	if st := out.Return.Session.StatusInfo; st.Status != statusOK {
		return nil, "", protocolRejection(out)
	}
	doc, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out.Return.DocumentData))
	if err != nil || !bytes.HasPrefix(doc, []byte("%PDF")) {
		return nil, "", fmt.Errorf("dpd_pl: generateProtocolV2: documentData is not a PDF (%v)", err)
	}
	return doc, out.Return.DocumentID, nil
}

// protocolRejection names what DPD said of the session and of each parcel:
// a parcel DPD refuses blames the shipments; an address DPD refuses
// (INCORRECT_PICKUP_ADDRESS_*) is the sender's, which the manifest request
// does not name.
func protocolRejection(out labelsResponse) error {
	st := out.Return.Session.StatusInfo
	var msgs []string
	for _, p := range out.Return.Session.Packages {
		for _, parcel := range p.Parcels {
			if parcel.StatusInfo.Status != "" && parcel.StatusInfo.Status != statusOK {
				msgs = append(msgs, parcel.Waybill+": "+describe(parcel.StatusInfo))
			}
		}
	}
	field := carrier.PickupFieldShipments
	if strings.HasPrefix(st.Status, "INCORRECT_PICKUP_ADDRESS") || st.Status == "ACCESS_DENIED_FOR_FID" {
		field = ""
	}
	msg := describe(st)
	if len(msgs) > 0 {
		msg += " (" + strings.Join(msgs, "; ") + ")"
	}
	return carrier.Reject(field, "DPD Poland made no protocol: %s", msg)
}
