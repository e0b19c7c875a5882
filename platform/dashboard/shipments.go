package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// The shipments pages read GET /v1/shipments, /v1/shipments/{id}, its label,
// /v1/shipping-channels and /v1/tracking-parcels as the signed-in account
// (ADR 0027); the label preview is drawn here (label_preview.go, ADR 0028).

// registerShipments adds the shipments pages.
func (d *Dashboard) registerShipments(r *mux.Router) {
	r.Handle("/dashboard/shipments", d.signedIn(d.shipmentsPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}", d.signedIn(d.shipmentPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}/label", d.signedIn(d.shipmentLabel)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}/label.png", d.signedIn(d.shipmentLabelPNG)).Methods(http.MethodGet)
}

// shipmentStatuses are the values of the list's status filter (the enum of
// GET /v1/shipments' status parameter in the OpenAPI document).
var shipmentStatuses = []string{"pending", "created", "shipped", "delivered", "cancelled", "returned"}

// shipmentPageSizes are offered in the list's form; the API takes 1 to 100.
var shipmentPageSizes = []string{"20", "50", "100"}

// Caps on the calls one page makes: each counts against the account's
// requests per minute.
const (
	shipmentChannelPages   = 5  // of 100 channels each, for the channel filter
	shipmentTrackingShown  = 20 // tracking parcels read for one shipment's page
	shipmentTrackingSearch = 20 // parcels a search shows by tracking number
)

// --- the API's JSON, as far as the pages show it ---

type shipmentSummaryJSON struct {
	ID                 string    `json:"id"`
	ReferenceNumber    string    `json:"reference_number"`
	ShippingChannelID  string    `json:"shipping_channel_id"`
	ProviderShipmentID *string   `json:"provider_shipment_id"`
	Status             string    `json:"status"`
	TotalPrice         *float64  `json:"total_price"`
	Currency           *string   `json:"currency"`
	CreatedAt          time.Time `json:"created_at"`
}

type shipmentListMeta struct {
	CurrentPage int  `json:"current_page"`
	LastPage    int  `json:"last_page"`
	PerPage     int  `json:"per_page"`
	Total       int  `json:"total"`
	From        *int `json:"from"`
	To          *int `json:"to"`
}

type shipmentContactJSON struct {
	CompanyName  string `json:"company_name"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
	PhoneNumber  string `json:"phone_number"`
}

// Name is the contact's person, or empty.
func (c shipmentContactJSON) Name() string {
	return strings.TrimSpace(c.FirstName + " " + c.LastName)
}

type shipmentAddressJSON struct {
	StreetName      string `json:"street_name"`
	HouseNumber     string `json:"house_number"`
	ApartmentNumber string `json:"apartment_number"`
	CityName        string `json:"city_name"`
	PostalCode      string `json:"postal_code"`
	CountryCode     string `json:"country_code"`
}

// Street is the street line: "Dlouhá 12/3".
func (a shipmentAddressJSON) Street() string {
	s := strings.TrimSpace(a.StreetName + " " + a.HouseNumber)
	if a.ApartmentNumber != "" {
		s += "/" + a.ApartmentNumber
	}
	return s
}

// City is the city line: "60200 Brno, CZ".
func (a shipmentAddressJSON) City() string {
	s := strings.TrimSpace(a.PostalCode + " " + a.CityName)
	if a.CountryCode != "" {
		s += ", " + a.CountryCode
	}
	return s
}

type shipmentParcelJSON struct {
	ParcelType      string  `json:"parcel_type"`
	LengthDimension float64 `json:"length_dimension"`
	WidthDimension  float64 `json:"width_dimension"`
	HeightDimension float64 `json:"height_dimension"`
	DimensionUnit   string  `json:"dimension_unit"`
	WeightAmount    float64 `json:"weight_amount"`
	WeightUnit      string  `json:"weight_unit"`
	TrackingNumber  *string `json:"tracking_number"`
}

type shipmentCODJSON struct {
	Amount      float64    `json:"amount"`
	Currency    string     `json:"currency"`
	CollectedAt *time.Time `json:"collected_at"`
}

// Shown is the amount with its currency: "1250.50 CZK".
func (c shipmentCODJSON) Shown() string { return shipmentMoney(c.Amount, c.Currency) }

type shipmentProblemJSON struct {
	Field   *string `json:"field"`
	Message string  `json:"message"`
}

type shipmentJSON struct {
	ID                 string                `json:"id"`
	ReferenceNumber    string                `json:"reference_number"`
	ShippingChannelID  string                `json:"shipping_channel_id"`
	ProviderShipmentID *string               `json:"provider_shipment_id"`
	Status             string                `json:"status"`
	TotalPrice         *float64              `json:"total_price"`
	Currency           *string               `json:"currency"`
	Provider           string                `json:"provider"`
	ProductType        string                `json:"product_type"`
	IsSuccessful       *bool                 `json:"is_successful"`
	HasLabel           bool                  `json:"has_label"`
	LabelFormat        string                `json:"label_format"`
	ShippingDate       string                `json:"shipping_date"`
	SenderContact      shipmentContactJSON   `json:"sender_contact"`
	RecipientContact   shipmentContactJSON   `json:"recipient_contact"`
	OriginAddress      shipmentAddressJSON   `json:"origin_address"`
	DestinationAddress shipmentAddressJSON   `json:"destination_address"`
	Parcels            []shipmentParcelJSON  `json:"parcels"`
	CashOnDelivery     *shipmentCODJSON      `json:"cash_on_delivery"`
	EnableTracking     bool                  `json:"enable_tracking"`
	AdditionalServices []string              `json:"additional_services"`
	Errors             []shipmentProblemJSON `json:"errors"`
	TrackingParcelIDs  []string              `json:"tracking_parcel_ids"`
	CreatedAt          time.Time             `json:"created_at"`
	UpdatedAt          time.Time             `json:"updated_at"`
}

type shipmentChannelJSON struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Status   string `json:"status"`
}

type shipmentStatusUpdateJSON struct {
	Status      *string   `json:"status"`
	Location    string    `json:"location"`
	Description string    `json:"description"`
	Timestamp   time.Time `json:"timestamp"`
	CarrierCode string    `json:"carrier_code"`
}

type shipmentTrackingJSON struct {
	ID             string                     `json:"id"`
	TrackingNumber string                     `json:"tracking_number"`
	Status         string                     `json:"status"`
	ShipmentID     *string                    `json:"shipment_id"`
	ChecksDone     int                        `json:"checks_done"`
	LastCheckedAt  *time.Time                 `json:"last_checked_at"`
	NextCheckAt    *time.Time                 `json:"next_check_at"`
	LastCheckError *string                    `json:"last_check_error"`
	CODCollectedAt *time.Time                 `json:"cod_collected_at"`
	StatusUpdates  []shipmentStatusUpdateJSON `json:"status_updates"`
}

// --- the list ---

// shipmentFilter is the list form's values as the browser sent them; they
// go to the API unchanged, which judges them.
type shipmentFilter struct {
	Status, ChannelID, Search, PerPage, Page string
}

func shipmentFilterOf(q url.Values) shipmentFilter {
	return shipmentFilter{Status: q.Get("status"), ChannelID: q.Get("shipping_channel_id"), Search: q.Get("search"),
		PerPage: q.Get("per_page"), Page: q.Get("page")}
}

// query is the filter as a query string, without empty values; page
// replaces the filter's page when not empty.
func (f shipmentFilter) query(page string) string {
	if page == "" {
		page = f.Page
	}
	q := url.Values{}
	for _, kv := range [][2]string{{"status", f.Status}, {"shipping_channel_id", f.ChannelID}, {"search", f.Search},
		{"per_page", f.PerPage}, {"page", page}} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	return q.Encode()
}

type shipmentOption struct {
	Value, Text string
	Selected    bool
}

type shipmentRow struct {
	ID, Reference, Status, ChannelID, ChannelName, CarrierID, Price string
	CreatedAt                                                       time.Time
}

type shipmentTrackingMatch struct {
	TrackingNumber, Status, ShipmentID string
}

// shipmentsView is the list page.
type shipmentsView struct {
	Search      string // shown in the form (text the page can show)
	Statuses    []shipmentOption
	Channels    []shipmentOption
	PageSizes   []shipmentOption
	Listed      bool // false when the API refused the filters
	Rows        []shipmentRow
	Meta        shipmentListMeta
	First, Prev string // links; empty when there is none
	Next, Last  string
	Filtered    bool
	Matches     []shipmentTrackingMatch // parcels whose tracking number starts with the search
}

func (d *Dashboard) shipmentsPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	f := shipmentFilterOf(r.URL.Query())
	var list struct {
		Data []shipmentSummaryJSON `json:"data"`
		Meta shipmentListMeta      `json:"meta"`
	}
	a, err := d.get(r, s, "/shipments?"+f.query(""), &list)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	v := view{Title: "Shipments", Nav: "shipments", Session: &s}
	status := http.StatusOK
	switch {
	case a.OK():
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity:
		// Filters the API refuses: its message, the form to correct them.
		p := a.problem()
		v.Problem, v.Fields, status = p.Message, p.Fields, a.Status
	default:
		d.apiFailed(w, r, s, a)
		return
	}
	channels, a, err := d.shipmentChannels(r, s)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a)
		return
	}

	sv := shipmentsView{Search: shownText(f.Search), Listed: status == http.StatusOK,
		Filtered: f.Status != "" || f.ChannelID != "" || f.Search != ""}
	for _, st := range shipmentStatuses {
		sv.Statuses = append(sv.Statuses, shipmentOption{Value: st, Text: st, Selected: st == f.Status})
	}
	names := map[string]string{}
	for _, c := range channels {
		names[c.ID] = c.Name
		sv.Channels = append(sv.Channels, shipmentOption{Value: c.ID, Text: c.Name + " (" + c.Provider + ")", Selected: c.ID == f.ChannelID})
	}
	if f.ChannelID != "" && names[f.ChannelID] == "" {
		// Keep the filter in the form even when it names no channel of the
		// account (deleted since, or typed into the address).
		sv.Channels = append(sv.Channels, shipmentOption{Value: f.ChannelID, Text: shownText(f.ChannelID) + " (no such channel)", Selected: true})
	}
	for _, n := range shipmentPageSizes {
		sv.PageSizes = append(sv.PageSizes, shipmentOption{Value: n, Text: n, Selected: n == f.PerPage})
	}
	if f.PerPage != "" && !slices.Contains(shipmentPageSizes, f.PerPage) && sv.Listed {
		sv.PageSizes = append(sv.PageSizes, shipmentOption{Value: f.PerPage, Text: f.PerPage, Selected: true})
	}
	if sv.Listed {
		for _, sh := range list.Data {
			row := shipmentRow{ID: sh.ID, Reference: sh.ReferenceNumber, Status: sh.Status, ChannelID: sh.ShippingChannelID,
				ChannelName: names[sh.ShippingChannelID], CreatedAt: sh.CreatedAt}
			if sh.ProviderShipmentID != nil {
				row.CarrierID = *sh.ProviderShipmentID
			}
			if sh.TotalPrice != nil && sh.Currency != nil {
				row.Price = shipmentMoney(*sh.TotalPrice, *sh.Currency)
			}
			sv.Rows = append(sv.Rows, row)
		}
		sv.Meta = list.Meta
		link := func(n int) string { return "/dashboard/shipments?" + f.query(strconv.Itoa(n)) }
		if m := list.Meta; m.CurrentPage > 1 {
			sv.First, sv.Prev = link(1), link(min(m.CurrentPage-1, m.LastPage))
		}
		if m := list.Meta; m.CurrentPage < m.LastPage {
			sv.Next, sv.Last = link(m.CurrentPage+1), link(m.LastPage)
		}
		if f.Search != "" && list.Meta.CurrentPage == 1 {
			sv.Matches = d.shipmentsByTrackingNumber(r, s, f)
		}
	}
	v.Data = sv
	d.render(w, status, "shipments", v)
}

// shipmentChannels lists the account's channels for the filter and the
// rows' channel names: up to shipmentChannelPages pages of 100.
func (d *Dashboard) shipmentChannels(r *http.Request, s auth.Session) ([]shipmentChannelJSON, apiAnswer, error) {
	var all []shipmentChannelJSON
	for page := 1; ; page++ {
		var list struct {
			Data []shipmentChannelJSON `json:"data"`
			Meta shipmentListMeta      `json:"meta"`
		}
		a, err := d.get(r, s, "/shipping-channels?per_page=100&page="+strconv.Itoa(page), &list)
		if err != nil || !a.OK() {
			return nil, a, err
		}
		all = append(all, list.Data...)
		if page >= list.Meta.LastPage || page >= shipmentChannelPages {
			return all, a, nil
		}
	}
}

// shipmentsByTrackingNumber finds the account's shipments whose parcels'
// tracking numbers start with the search: GET /v1/shipments searches
// references and carrier shipment ids only, the tracking parcels of booked
// shipments carry their shipment's id. A search the tracking list refuses
// (not a tracking number) finds nothing here.
func (d *Dashboard) shipmentsByTrackingNumber(r *http.Request, s auth.Session, f shipmentFilter) []shipmentTrackingMatch {
	q := url.Values{"search": {f.Search}, "per_page": {strconv.Itoa(shipmentTrackingSearch)}}
	if f.ChannelID != "" {
		q.Set("shipping_channel_id", f.ChannelID)
	}
	var list struct {
		Data []shipmentTrackingJSON `json:"data"`
	}
	a, err := d.get(r, s, "/tracking-parcels?"+q.Encode(), &list)
	if err != nil || !a.OK() {
		return nil
	}
	var out []shipmentTrackingMatch
	for _, tp := range list.Data {
		if tp.ShipmentID != nil {
			out = append(out, shipmentTrackingMatch{TrackingNumber: tp.TrackingNumber, Status: tp.Status, ShipmentID: *tp.ShipmentID})
		}
	}
	return out
}

// --- one shipment ---

type shipmentParcelRow struct {
	N                                        int
	Type, Size, Weight, TrackingNumber, Note string
	Tracking                                 *shipmentTrackingJSON
}

// shipmentView is the shipment page.
type shipmentView struct {
	Shipment     shipmentJSON
	ChannelName  string
	CarrierID    string
	Price        string
	Parcels      []shipmentParcelRow
	Tracking     []shipmentTrackingJSON // in parcel order
	TrackingNote string                 // why tracking is missing or partial
	LabelFormat  string                 // upper case: "PDF"
	LabelNote    string                 // why there is no label
	Preview      bool                   // show the <img>
	PreviewNote  string                 // why there is no preview
	MultiPage    bool
	Refused      bool
}

// shipmentParty is a contact at an address.
type shipmentParty struct {
	Contact shipmentContactJSON
	Address shipmentAddressJSON
}

// From is the sender at the origin.
func (v shipmentView) From() shipmentParty {
	return shipmentParty{Contact: v.Shipment.SenderContact, Address: v.Shipment.OriginAddress}
}

// To is the recipient at the destination.
func (v shipmentView) To() shipmentParty {
	return shipmentParty{Contact: v.Shipment.RecipientContact, Address: v.Shipment.DestinationAddress}
}

func (d *Dashboard) shipmentPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipment")
		return
	}
	var one struct {
		Data shipmentJSON `json:"data"`
	}
	a, err := d.get(r, s, "/shipments/"+id, &one)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !a.OK() {
		d.shipmentAPIFailed(w, r, s, a)
		return
	}
	sh := one.Data
	sv := shipmentView{Shipment: sh, LabelFormat: strings.ToUpper(sh.LabelFormat), MultiPage: len(sh.Parcels) > 1,
		Refused: sh.IsSuccessful != nil && !*sh.IsSuccessful}
	if sh.ProviderShipmentID != nil {
		sv.CarrierID = *sh.ProviderShipmentID
	}
	if sh.TotalPrice != nil && sh.Currency != nil {
		sv.Price = shipmentMoney(*sh.TotalPrice, *sh.Currency)
	}

	// The channel's name; a channel deleted since leaves its id.
	if cid, ok := pathID(sh.ShippingChannelID); ok {
		var ch struct {
			Data shipmentChannelJSON `json:"data"`
		}
		if a, err := d.get(r, s, "/shipping-channels/"+cid, &ch); err == nil && a.OK() {
			sv.ChannelName = ch.Data.Name
		}
	}

	// Tracking: the shipment lists the tracking parcels made for its parcels
	// (ADR 0018); each one's page has its status updates.
	byNumber := map[string]*shipmentTrackingJSON{}
	for i, tpID := range sh.TrackingParcelIDs {
		if i == shipmentTrackingShown {
			sv.TrackingNote = fmt.Sprintf("Tracking of the first %d parcels is shown; GET /v1/tracking-parcels/{id} has the other %d.",
				shipmentTrackingShown, len(sh.TrackingParcelIDs)-shipmentTrackingShown)
			break
		}
		tpID, ok := pathID(tpID)
		if !ok {
			continue
		}
		var tp struct {
			Data shipmentTrackingJSON `json:"data"`
		}
		a, err := d.get(r, s, "/tracking-parcels/"+tpID, &tp)
		if err != nil || !a.OK() {
			if err == nil && (a.Status == http.StatusNotFound || a.Status == http.StatusForbidden) {
				continue
			}
			msg := "the API did not answer as expected"
			if err == nil {
				msg = a.problem().Message
			} else {
				slog.WarnContext(r.Context(), "dashboard: reading a shipment's tracking parcel", "shipment", id, "tracking_parcel", tpID, "err", err)
			}
			sv.TrackingNote = "Tracking could not be read: " + msg
			break
		}
		t := tp.Data
		byNumber[strings.ToUpper(t.TrackingNumber)] = &t
	}
	for i, p := range sh.Parcels {
		row := shipmentParcelRow{N: i + 1, Type: p.ParcelType,
			Size:   fmt.Sprintf("%s × %s × %s %s", shipmentNumber(p.LengthDimension), shipmentNumber(p.WidthDimension), shipmentNumber(p.HeightDimension), p.DimensionUnit),
			Weight: shipmentNumber(p.WeightAmount) + " " + p.WeightUnit}
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

	// The label.
	switch {
	case sh.HasLabel:
		if err := labelPreviews().unavailable(sh.LabelFormat); err != nil {
			sv.PreviewNote = shipmentNoPreview(sh.LabelFormat, err)
		} else {
			sv.Preview = true
		}
	case sv.Refused:
		sv.LabelNote = "No label: the carrier refused the shipment (see the errors above)."
	case sh.Status == "pending":
		sv.LabelNote = "No label yet: the carrier has not booked the shipment. The label is made when it does."
	default:
		sv.LabelNote = "This shipment has no label (status " + sh.Status + ")."
	}
	title := sh.ReferenceNumber
	if title == "" {
		title = sh.ID
	}
	d.render(w, http.StatusOK, "shipments_detail", view{Title: "Shipment " + title, Nav: "shipments", Session: &s, Data: sv})
}

// shipmentLabel answers the label file as the API has it, to save.
func (d *Dashboard) shipmentLabel(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, a, ok := d.shipmentLabelFile(w, r, s)
	if !ok {
		return
	}
	if a.Status == http.StatusNotFound {
		d.render(w, http.StatusNotFound, "home", view{Title: "No label", Nav: "shipments", Session: &s, Problem: a.problem().Message})
		return
	}
	contentType := a.Header.Get("Content-Type")
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	disposition := a.Header.Get("Content-Disposition")
	if !strings.HasPrefix(disposition, "attachment") {
		disposition = `attachment; filename="` + id + `.label"`
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", disposition)
	h.Set("Content-Length", strconv.Itoa(len(a.Body)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.Body)
}

// shipmentLabelPNG answers the first page of a PDF label as a PNG image
// (ADR 0028), or a short text saying why there is none.
func (d *Dashboard) shipmentLabelPNG(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, a, ok := d.shipmentLabelFile(w, r, s)
	if !ok {
		return
	}
	if a.Status == http.StatusNotFound {
		shipmentText(w, http.StatusNotFound, "No label: "+a.problem().Message)
		return
	}
	format := shipmentLabelFormat(a.Header.Get("Content-Type"))
	previews := labelPreviews()
	if err := previews.unavailable(format); err != nil {
		shipmentText(w, http.StatusNotFound, shipmentNoPreview(format, err))
		return
	}
	img, err := previews.png(r.Context(), a.Body)
	switch {
	case err == nil:
	case r.Context().Err() != nil:
		return // the browser went away
	case errors.Is(err, errPreviewBusy):
		w.Header().Set("Retry-After", "5")
		shipmentText(w, http.StatusServiceUnavailable, "No preview: "+err.Error()+".")
		return
	default:
		slog.WarnContext(r.Context(), "dashboard: drawing a label preview", "shipment", id, "err", err)
		shipmentText(w, http.StatusNotFound, "No preview: the label could not be drawn as an image. Download it instead.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(img)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(img)
}

// shipmentLabelFile reads the raw label of the URL's shipment. It answers
// the request itself (ok false) unless the API gave the file or said the
// label is not there yet (a 404 label_not_available, returned for the
// caller to answer).
func (d *Dashboard) shipmentLabelFile(w http.ResponseWriter, r *http.Request, s auth.Session) (string, apiAnswer, bool) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipment")
		return "", apiAnswer{}, false
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodGet, Path: "/shipments/" + id + "/label?download=true"})
	if err != nil {
		d.failed(w, r, err)
		return "", apiAnswer{}, false
	}
	if a.OK() || apiErrorCode(a) == "label_not_available" {
		return id, a, true
	}
	d.shipmentAPIFailed(w, r, s, a)
	return "", apiAnswer{}, false
}

// shipmentAPIFailed answers a failed read of one shipment. The API answers
// 403 for another account's shipment and 404 for one that never existed;
// both are "no such shipment" here, so the page tells neither apart.
func (d *Dashboard) shipmentAPIFailed(w http.ResponseWriter, r *http.Request, s auth.Session, a apiAnswer) {
	if a.Status == http.StatusForbidden || a.Status == http.StatusNotFound {
		d.notYours(w, s, "shipment")
		return
	}
	d.apiFailed(w, r, s, a)
}

// apiErrorCode is the error code of an API error answer, or empty.
func apiErrorCode(a apiAnswer) string {
	var body httpapi.ErrorBody
	if json.Unmarshal(a.Body, &body) != nil {
		return ""
	}
	return body.Error.Code
}

// shipmentLabelFormat is the label format of a media type the API answers.
func shipmentLabelFormat(contentType string) string {
	switch mediaType, _, _ := strings.Cut(contentType, ";"); strings.TrimSpace(strings.ToLower(mediaType)) {
	case "application/pdf":
		return "pdf"
	case "application/x-zpl":
		return "zpl"
	case "application/x-epl":
		return "epl"
	}
	return ""
}

// shipmentNoPreview says why a label of format has no preview.
func shipmentNoPreview(format string, err error) string {
	switch {
	case errors.Is(err, errPreviewFormat) && format != "":
		return "No preview for " + strings.ToUpper(format) + " labels: download the label to print it."
	case errors.Is(err, errPreviewFormat):
		return "No preview for labels of this format: download the label to print it."
	}
	return "No preview: " + err.Error() + ". Download the label to see it."
}

// shipmentText answers a short plain text, for URLs the page uses as images.
func shipmentText(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, msg)
}

// shipmentMoney shows an amount with its currency: two decimals, none for
// the currencies that have no minor unit.
func shipmentMoney(amount float64, currency string) string {
	decimals := 2
	switch strings.ToUpper(currency) {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		decimals = 0
	}
	return strconv.FormatFloat(amount, 'f', decimals, 64) + " " + currency
}

// shipmentNumber shows a dimension or weight without trailing zeros.
func shipmentNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// shownText is text from the address bar as a page can show it (the API
// refuses what is not UTF-8 or holds NUL, and the page says so).
func shownText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
