package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	channelscontract "shipd/modules/channels/contract"
	shipmentscontract "shipd/modules/shipments/contract"
	trackingcontract "shipd/modules/tracking/contract"
	"shipd/platform/auth"
)

// shipmentStatuses are the values of the list's status filter (the enum of
// GET /v1/shipments' status parameter in the OpenAPI document).
var shipmentStatuses = []string{"pending", "created", "shipped", "delivered", "cancelled", "returned"}

// pageSizes are offered in the list's form; the API takes 1 to 100.
var pageSizes = []string{"20", "50", "100"}

// Caps on the calls the list makes: each counts against the account's
// requests per minute.
const (
	channelFilterPages = 5  // of 100 channels each, for the channel filter
	trackingMatches    = 20 // parcels a search shows by tracking number
)

// shipmentFilter is the list form's values as the browser sent them; they
// go to the API unchanged, which judges them.
type shipmentFilter struct {
	Status, ChannelID, Search, PerPage, Page string
}

func shipmentFilterOf(q url.Values) shipmentFilter {
	return shipmentFilter{Status: q.Get("status"), ChannelID: q.Get("shipping_channel_id"), Search: q.Get("search"),
		PerPage: q.Get("per_page"), Page: q.Get("page")}
}

// values are the filters without the page, as the list's links keep them.
func (f shipmentFilter) values() url.Values {
	return url.Values{"status": {f.Status}, "shipping_channel_id": {f.ChannelID}, "search": {f.Search}, "per_page": {f.PerPage}}
}

// option is one choice of a select.
type option struct {
	Value, Text string
	Selected    bool
}

type shipmentRow struct {
	ID, Reference, Status, ChannelID, ChannelName, CarrierID, Price string
	CreatedAt                                                       time.Time
}

// trackingMatch is a parcel whose tracking number starts with the search.
type trackingMatch struct {
	TrackingNumber, Status, ShipmentID string
}

// shipmentsView is the list page.
type shipmentsView struct {
	Search    string // shown in the form (text the page can show)
	Statuses  []option
	Channels  []option
	PageSizes []option
	Listed    bool // false when the API refused the filters
	Rows      []shipmentRow
	Pager     pager
	Filtered  bool
	Matches   []trackingMatch
}

func (d *Dashboard) shipmentsPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	f := shipmentFilterOf(r.URL.Query())
	var list apiList[shipmentscontract.Summary]
	a, err := d.get(r, s, listURL("/shipments", f.values(), f.Page), &list)
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
		d.apiFailed(w, r, s, a, "shipment")
		return
	}
	channels, ok := d.accountChannels(w, r, s)
	if !ok {
		return
	}

	sv := shipmentsView{Search: shownText(f.Search), Listed: status == http.StatusOK,
		Filtered: f.Status != "" || f.ChannelID != "" || f.Search != ""}
	for _, st := range shipmentStatuses {
		sv.Statuses = append(sv.Statuses, option{Value: st, Text: st, Selected: st == f.Status})
	}
	names := map[string]string{}
	for _, c := range channels {
		names[c.ID] = c.Name
		sv.Channels = append(sv.Channels, option{Value: c.ID, Text: c.Name + " (" + c.Provider + ")", Selected: c.ID == f.ChannelID})
	}
	if f.ChannelID != "" && names[f.ChannelID] == "" {
		// Keep the filter in the form even when it names no channel of the
		// account (deleted since, or typed into the address).
		sv.Channels = append(sv.Channels, option{Value: f.ChannelID, Text: shownText(f.ChannelID) + " (no such channel)", Selected: true})
	}
	for _, n := range pageSizes {
		sv.PageSizes = append(sv.PageSizes, option{Value: n, Text: n, Selected: n == f.PerPage})
	}
	if f.PerPage != "" && !slices.Contains(pageSizes, f.PerPage) && sv.Listed {
		sv.PageSizes = append(sv.PageSizes, option{Value: f.PerPage, Text: f.PerPage, Selected: true})
	}
	if sv.Listed {
		for _, sh := range list.Data {
			sv.Rows = append(sv.Rows, shipmentRow{ID: sh.ID, Reference: sh.ReferenceNumber, Status: sh.Status,
				ChannelID: sh.ShippingChannelID, ChannelName: names[sh.ShippingChannelID], CreatedAt: sh.CreatedAt,
				CarrierID: carrierID(sh.ProviderShipmentID), Price: price(sh.TotalPrice, sh.Currency)})
		}
		sv.Pager = newPager("/dashboard/shipments", f.values(), list.Meta, "shipment")
		if f.Search != "" && list.Meta.CurrentPage == 1 {
			sv.Matches = d.shipmentsByTrackingNumber(r, s, f)
		}
	}
	v.Data = sv
	d.render(w, status, "shipments", v)
}

// accountChannels lists the account's channels for the filter and the rows'
// channel names: up to channelFilterPages pages of 100. ok is false when the
// page was answered already (the call failed).
func (d *Dashboard) accountChannels(w http.ResponseWriter, r *http.Request, s auth.Session) ([]channelscontract.ShippingChannel, bool) {
	all, _, ok := readPages[channelscontract.ShippingChannel](d, w, r, s, "/shipping-channels", channelFilterPages, "shipping channel")
	return all, ok
}

// shipmentsByTrackingNumber finds the account's shipments whose parcels'
// tracking numbers start with the search: GET /v1/shipments searches
// references and carrier shipment ids only, the tracking parcels of booked
// shipments carry their shipment's id. A search the tracking list refuses
// (not a tracking number) finds nothing here.
func (d *Dashboard) shipmentsByTrackingNumber(r *http.Request, s auth.Session, f shipmentFilter) []trackingMatch {
	q := url.Values{"search": {f.Search}, "per_page": {strconv.Itoa(trackingMatches)}}
	if f.ChannelID != "" {
		q.Set("shipping_channel_id", f.ChannelID)
	}
	var list apiList[trackingcontract.Summary]
	a, err := d.get(r, s, "/tracking-parcels?"+q.Encode(), &list)
	if err != nil || !a.OK() {
		return nil
	}
	var out []trackingMatch
	for _, tp := range list.Data {
		if tp.ShipmentID != nil {
			out = append(out, trackingMatch{TrackingNumber: tp.TrackingNumber, Status: tp.Status, ShipmentID: *tp.ShipmentID})
		}
	}
	return out
}

// shownText is text from the address bar as a page can show it (the API
// refuses what is not UTF-8 or holds NUL, and the page says so).
func shownText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
