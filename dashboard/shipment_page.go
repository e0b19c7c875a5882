package dashboard

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	channelscontract "shipd/modules/channels/contract"
	shipmentscontract "shipd/modules/shipments/contract"
	trackingcontract "shipd/modules/tracking/contract"
	"shipd/platform/auth"
)

// trackingParcelsShown caps the tracking parcels one shipment's page reads:
// each read counts against the account's requests per minute.
const trackingParcelsShown = 20

type parcelRow struct {
	N                                        int
	Type, Size, Weight, TrackingNumber, Note string
	Tracking                                 *trackingcontract.Detail
}

// shipmentView is the shipment page.
type shipmentView struct {
	Shipment     shipmentscontract.Shipment
	ChannelName  string
	CarrierID    string
	Price        string
	Parcels      []parcelRow
	Tracking     []trackingcontract.Detail // in parcel order
	TrackingNote string                    // why tracking is missing or partial
	LabelFormat  string                    // upper case: "PDF"
	LabelNote    string                    // why there is no label
	Preview      bool                      // show the <img>
	PreviewNote  string                    // why there is no preview
	MultiPage    bool
	Refused      bool
	// LabelRetry offers to fetch again the label of a shipment the carrier
	// holds whose label could not be fetched (ADR 0041).
	LabelRetry bool
}

// party is a contact at an address.
type party struct {
	Contact shipmentscontract.Contact
	Address shipmentscontract.Address
}

// Name is the contact's person, or empty.
func (p party) Name() string {
	return strings.TrimSpace(p.Contact.FirstName + " " + p.Contact.LastName)
}

// Street is the street line: "Dlouhá 12/3".
func (p party) Street() string {
	a := p.Address
	s := strings.TrimSpace(a.StreetName + " " + a.HouseNumber)
	if a.ApartmentNumber != "" {
		s += "/" + a.ApartmentNumber
	}
	return s
}

// City is the city line: "60200 Brno, CZ".
func (p party) City() string {
	a := p.Address
	s := strings.TrimSpace(a.PostalCode + " " + a.CityName)
	if a.CountryCode != "" {
		s += ", " + a.CountryCode
	}
	return s
}

// From is the sender at the origin.
func (v shipmentView) From() party {
	return party{Contact: v.Shipment.SenderContact, Address: v.Shipment.OriginAddress}
}

// To is the recipient at the destination.
func (v shipmentView) To() party {
	return party{Contact: v.Shipment.RecipientContact, Address: v.Shipment.DestinationAddress}
}

func (d *Dashboard) shipmentPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	var one apiOne[shipmentscontract.Shipment]
	if _, ok := d.readURLs(w, r, s, "/shipments", &one, "shipment"); !ok {
		return
	}
	sh := one.Data
	sv := shipmentView{Shipment: sh, LabelFormat: strings.ToUpper(sh.LabelFormat), MultiPage: len(sh.Parcels) > 1,
		Refused:   sh.IsSuccessful != nil && !*sh.IsSuccessful,
		CarrierID: carrierID(sh.ProviderShipmentID), Price: price(sh.TotalPrice, sh.Currency)}

	// The channel's name; a channel deleted since leaves its id.
	if cid, ok := pathID(sh.ShippingChannelID); ok {
		var ch apiOne[channelscontract.ShippingChannel]
		if a, err := d.get(r, s, "/shipping-channels/"+cid, &ch); err == nil && a.OK() {
			sv.ChannelName = ch.Data.Name
		}
	}

	d.addTracking(r, s, &sv)
	sv.LabelNote, sv.Preview, sv.PreviewNote = labelNotes(sh, sv.Refused)
	sv.LabelRetry = sh.Status == "created" && !sh.HasLabel && labelProblem(sh)
	title := sh.ReferenceNumber
	if title == "" {
		title = sh.ID
	}
	d.render(w, http.StatusOK, "shipments_detail", view{Title: "Shipment " + title, Nav: "shipments", Session: &s, Data: sv})
}

// retryShipmentLabel asks the API to fetch the label again
// (POST /v1/shipments/{id}/label/retry), then shows the shipment, its label
// being fetched.
func (d *Dashboard) retryShipmentLabel(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipment")
		return
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodPost, Path: "/shipments/" + id + "/label/retry"})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a, "shipment")
		return
	}
	http.Redirect(w, r, "/dashboard/shipments/"+id, http.StatusSeeOther)
}

// labelProblem reports whether the shipment's errors say its label could
// not be fetched.
func labelProblem(sh shipmentscontract.Shipment) bool {
	for _, p := range sh.Errors {
		if p.Field != nil && *p.Field == "label" {
			return true
		}
	}
	return false
}

// addTracking puts the shipment's parcels on the page with their tracking.
// The shipment lists the tracking parcels made for its parcels (ADR 0018);
// each one's page has its status updates.
func (d *Dashboard) addTracking(r *http.Request, s auth.Session, sv *shipmentView) {
	sh := sv.Shipment
	byNumber := map[string]*trackingcontract.Detail{}
	for i, tpID := range sh.TrackingParcelIDs {
		if i == trackingParcelsShown {
			sv.TrackingNote = fmt.Sprintf("Tracking of the first %d parcels is shown; GET /v1/tracking-parcels/{id} has the other %d.",
				trackingParcelsShown, len(sh.TrackingParcelIDs)-trackingParcelsShown)
			break
		}
		tpID, ok := pathID(tpID)
		if !ok {
			continue
		}
		var tp apiOne[trackingcontract.Detail]
		a, err := d.get(r, s, "/tracking-parcels/"+tpID, &tp)
		if err != nil || !a.OK() {
			if err == nil && (a.Status == http.StatusNotFound || a.Status == http.StatusForbidden) {
				continue
			}
			msg := "the API did not answer as expected"
			if err == nil {
				msg = a.problem().Message
			} else {
				slog.WarnContext(r.Context(), "dashboard: reading a shipment's tracking parcel", "shipment", sh.ID, "tracking_parcel", tpID, "err", err)
			}
			sv.TrackingNote = "Tracking could not be read: " + msg
			break
		}
		t := tp.Data
		byNumber[strings.ToUpper(t.TrackingNumber)] = &t
	}
	for i, p := range sh.Parcels {
		row := parcelRow{N: i + 1, Type: p.ParcelType,
			Size:   fmt.Sprintf("%s × %s × %s %s", measurement(p.LengthDimension), measurement(p.WidthDimension), measurement(p.HeightDimension), p.DimensionUnit),
			Weight: measurement(p.WeightAmount) + " " + p.WeightUnit}
		if p.TrackingNumber != nil {
			row.TrackingNumber = *p.TrackingNumber
			if t := byNumber[strings.ToUpper(row.TrackingNumber)]; t != nil {
				row.Tracking = t
				sv.Tracking = append(sv.Tracking, *t)
				delete(byNumber, strings.ToUpper(row.TrackingNumber))
			}
		}
		sv.Parcels = append(sv.Parcels, row)
	}
	for _, t := range byNumber { // a tracking parcel no parcel names (not expected)
		sv.Tracking = append(sv.Tracking, *t)
	}
	if len(sv.Tracking) == 0 && sv.TrackingNote == "" {
		switch {
		case sv.Refused:
			sv.TrackingNote = "No tracking: the carrier refused the shipment."
		case !sh.EnableTracking:
			sv.TrackingNote = "Tracking is off for this shipment."
		case sh.HasLabel && (sh.Status == "created" || sh.Status == "shipped"):
			sv.TrackingNote = "Tracking starts shortly after the carrier booked the shipment; reload the page in a moment."
		case !sh.HasLabel:
			sv.TrackingNote = "Tracking starts once the carrier has booked the shipment."
		default:
			sv.TrackingNote = "No tracking parcels."
		}
	}
}

// labelNotes say why the page has no label (labelNote), or whether it
// shows the label's preview and why not.
func labelNotes(sh shipmentscontract.Shipment, refused bool) (labelNote string, preview bool, previewNote string) {
	switch {
	case sh.HasLabel:
		if err := labelPreviews().unavailable(sh.LabelFormat); err != nil {
			return "", false, noPreviewReason(sh.LabelFormat, err)
		}
		return "", true, ""
	case refused:
		return "No label: the carrier refused the shipment (see the errors above).", false, ""
	case sh.Status == "pending" && sh.ProviderShipmentID != nil:
		return "No label yet: the carrier holds the shipment and its label is being fetched. Reload the page in a moment.", false, ""
	case sh.Status == "created" && labelProblem(sh):
		return "No label: the carrier holds the shipment, but its label could not be fetched (see the errors above).", false, ""
	case sh.Status == "created" && sh.ProviderShipmentID != nil:
		return "No label yet: the carrier holds the shipment and its label is being fetched again. Reload the page in a moment.", false, ""
	case sh.Status == "pending":
		return "No label yet: the carrier has not booked the shipment. The label is made when it does.", false, ""
	}
	return "This shipment has no label (status " + sh.Status + ").", false, ""
}
