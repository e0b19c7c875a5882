package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

var _ carrier.Dispatcher = (*Carrier)(nil)

// dispatchInfo is what GET /v1/providers publishes of GLS's pickups and
// manifests (the package doc's "Pickups and manifests").
var dispatchInfo = carrier.DispatchInfo{
	Pickups:             true,
	PickupCancel:        false,
	PickupAvailability:  carrier.AvailabilityDefaults,
	PickupShipments:     carrier.PickupCountsOnly,
	Manifest:            carrier.ManifestByCarrier,
	CancelAfterManifest: carrier.CancelAfterManifestCarrier,
	Note: "GLS collects at the GLS contact's registered address on a date (no window, no address of the order's own) " +
		"a count and weight of parcels, and answers the date it will come; a collection is cancelled through the GLS depot. " +
		"The manifest hands the day's shipments over with GLS's end of day, which answers data, not a document: its PDF is shipd's.",
}

// SporadicCollection and its answer (shipit-farm.yaml; the field rules are
// GLS's documentation's, rest_sporadic_collection.html).
type (
	collectionRequest struct {
		ContactID             string  `json:"ContactID"`
		PreferredPickUpDate   string  `json:"PreferredPickUpDate"`
		NumberOfParcels       int     `json:"NumberOfParcels"`
		Product               string  `json:"Product"`
		ExpectedTotalWeight   float64 `json:"ExpectedTotalWeight,omitempty"`
		AdditionalInformation string  `json:"AdditionalInformation,omitempty"`
	}
	// collectionResponse: the YAML names EstimatedPickUpDate; GLS's
	// documentation says the date comes back as PreferredPickUpDate. Both
	// are read, the YAML's first.
	collectionResponse struct {
		EstimatedPickUpDate string `json:"EstimatedPickUpDate"`
		PreferredPickUpDate string `json:"PreferredPickUpDate"`
	}
)

// maxCollectionParcels: NumberOfParcels is 6 digits [V gls-doc].
const maxCollectionParcels = 999999

// collection is the handle of a collection GLS accepted: the date it
// answered. GLS answers no number.
type collection struct {
	Date string `json:"date"`
}

func (h collection) pickup() carrier.CourierPickup {
	raw, _ := json.Marshal(h)
	return carrier.CourierPickup{Date: h.Date, Handle: string(raw)}
}

// OrderCourierPickup orders a sporadic collection (POST
// /rs/sporadiccollection) for the channel's GLS contact: the date, the
// parcel count and total weight, the product, and as additional
// information the window, the contact and the note. GLS collects at the
// contact's registered address, whatever the request's address [V]; it
// answers the date it will come (a Sunday, a holiday or a past date moved to
// the next working day [V gls-doc]) and no number, so the pickup's
// confirmation number is empty and its date GLS's. Ordering is synchronous
// and made once: GLS's answer is recorded through req.Booking at once, and
// an attempt given that handle answers it again without ordering (ShipIT
// takes no key of ours and lists no collections).
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	if req.Booking.Handle != "" {
		var h collection
		if err := json.Unmarshal([]byte(req.Booking.Handle), &h); err != nil || h.Date == "" {
			return carrier.CourierPickup{}, carrierhttp.Unavailable("gls: the collection's handle %q is unreadable: %v", req.Booking.Handle, err)
		}
		return h.pickup(), nil
	}
	body, err := collectionOf(s, req)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	e := c.env(s)
	raw, _ := json.Marshal(body)
	res, err := c.call(ctx, e, http.MethodPost, e.base+"/rs/sporadiccollection", MediaType, raw)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		return carrier.CourierPickup{}, refusal("the collection", res, pickupFieldOf)
	}
	var out collectionResponse
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return carrier.CourierPickup{}, fmt.Errorf("gls: reading the collection's answer: %w", err)
	}
	answered := out.EstimatedPickUpDate
	if answered == "" {
		answered = out.PreferredPickUpDate
	}
	date, ok := calendarDate(answered)
	if !ok {
		// GLS took the order; a date it does not say leaves the one asked.
		date = req.Date
	}
	h := collection{Date: date}
	p := h.pickup()
	if err := carrierhttp.Accept(ctx, req.Booking, p.Handle); err != nil {
		return carrier.CourierPickup{}, err
	}
	return p, nil
}

// collectionOf is req as GLS's SporadicCollection, refusing first what GLS
// documents it refuses: no date, no parcels, more parcels than 6 digits.
func collectionOf(s carrier.Settings, req carrier.CourierPickupRequest) (collectionRequest, error) {
	var problems []*carrier.Rejection
	contact := strings.TrimSpace(s.String("contactId"))
	if contact == "" {
		problems = append(problems, carrier.Reject("contactId", "GLS collects for a GLS contact: the channel names none"))
	}
	if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
		problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date))
	}
	if req.ParcelCount <= 0 || req.ParcelCount > maxCollectionParcels {
		problems = append(problems, carrier.Reject(carrier.PickupFieldParcels, "GLS collects 1 to %d parcels, got %d", maxCollectionParcels, req.ParcelCount))
	}
	if req.TotalWeightKG < 0 {
		problems = append(problems, carrier.Reject(carrier.PickupFieldWeight, "must not be negative, got %g", req.TotalWeightKG))
	}
	product := strings.ToUpper(strings.TrimSpace(s.String("productType")))
	if product == "" {
		product = ProductParcel
	}
	if product != ProductParcel && product != ProductExpress {
		problems = append(problems, carrier.Reject("productType", "GLS collects PARCEL or EXPRESS, not %q", product))
	}
	if err := carrier.RejectionOf(problems); err != nil {
		return collectionRequest{}, err
	}
	return collectionRequest{
		ContactID:             contact,
		PreferredPickUpDate:   req.Date, // YYYY-MM-DD, as GLS's documentation writes it [V gls-doc; the YAML says date-time]
		NumberOfParcels:       req.ParcelCount,
		Product:               product,
		ExpectedTotalWeight:   math.Round(req.TotalWeightKG*100) / 100,
		AdditionalInformation: collectionNote(req),
	}, nil
}

// collectionNote is what GLS's depot reads besides the counts: the window
// and the person to ask for, which the collection has no fields for, and
// the request's note.
func collectionNote(req carrier.CourierPickupRequest) string {
	var parts []string
	if req.ReadyFrom != "" && req.ReadyUntil != "" {
		parts = append(parts, "Ready "+req.ReadyFrom+"-"+req.ReadyUntil)
	}
	who := strings.TrimSpace(strings.TrimSpace(req.Contact.FirstName+" "+req.Contact.LastName) + " " + req.Contact.Phone)
	if who != "" {
		parts = append(parts, "Contact "+who)
	}
	if n := strings.TrimSpace(req.Note); n != "" {
		parts = append(parts, n)
	}
	return strings.Join(parts, ". ")
}

// calendarDate is the date an answer names, a date or a date-time, as
// written (not moved to another zone).
func calendarDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.Format(time.DateOnly), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly), true
		}
	}
	return "", false
}

// CancelCourierPickup is not offered: ShipIT has no operation that cancels
// a collection; GLS asks to call the depot [V gls-doc].
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, p carrier.CourierPickup) error {
	return fmt.Errorf("%w: GLS ShipIT cannot cancel a collection: call your GLS depot", carrier.ErrNotOffered)
}

// CourierPickupWindows is not offered: GLS takes a date, no window, and
// says of no time; the dispatch module's defaults stand.
func (c *Carrier) CourierPickupWindows(ctx context.Context, s carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	return nil, carrier.ErrNotOffered
}

// pickupFieldRules map what a ShipIT refusal of a collection names to the
// request's fields (first match wins).
var pickupFieldRules = []struct{ contains, field string }{
	{"contactid", "contactId"},
	{"pickupdate", carrier.PickupFieldDate},
	{"numberofparcels", carrier.PickupFieldParcels},
	{"weight", carrier.PickupFieldWeight},
	{"product", "productType"},
}

func pickupFieldOf(text string) string {
	low := strings.ToLower(text)
	for _, r := range pickupFieldRules {
		if strings.Contains(low, r.contains) {
			return r.field
		}
	}
	return ""
}
