package adapters

import (
	"shipd/adapters/labels"
	"shipd/modules/dispatch/app/command"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// HandoverDocuments draws shipd's handover document with the labels
// package (ADR 0053).
type HandoverDocuments struct{}

var _ command.HandoverDocuments = HandoverDocuments{}

// Draw renders h; what the document cannot hold (too many parcels, a
// tracking number too long for its barcode) is the request's fault, on
// shipment_ids.
func (HandoverDocuments) Draw(h command.Handover) ([]byte, error) {
	d := labels.HandoverDocument{Carrier: h.Carrier, ChannelName: h.ChannelName, ManifestID: h.ManifestID, Date: h.Date,
		Sender: party(h.Sender, h.Origin)}
	for _, sh := range h.Shipments {
		hs := labels.HandoverShipment{Reference: sh.Reference, Recipient: party(sh.Recipient, sh.Destination), COD: sh.COD}
		for i, p := range sh.Parcels {
			number := ""
			if i < len(sh.TrackingNumbers) {
				number = sh.TrackingNumbers[i]
			}
			hs.Parcels = append(hs.Parcels, labels.HandoverParcel{TrackingNumber: number, WeightKG: p.WeightKG()})
		}
		d.Shipments = append(d.Shipments, hs)
	}
	pdf, err := labels.RenderHandover(d)
	if err != nil {
		// Asked again only on the rare failure, not before every drawing
		// (a second check of 1,000 parcels cost 16 ms, make bench).
		if problem := labels.CheckHandover(d); problem != nil {
			return nil, fault.Field("shipment_ids", "cannot be put on shipd's handover document: "+problem.Error())
		}
		return nil, err
	}
	return pdf, nil
}

func party(c carrier.Contact, a carrier.Address) labels.Party {
	name := c.FirstName
	if c.LastName != "" {
		if name != "" {
			name += " "
		}
		name += c.LastName
	}
	return labels.Party{Name: name, Company: c.CompanyName, Street: a.StreetName, HouseNumber: a.HouseNumber,
		PostalCode: a.PostalCode, City: a.CityName, CountryCode: a.CountryCode, Phone: c.Phone}
}
