package dashboard

import (
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	dispatchcontract "shipd/modules/dispatch/contract"
	"shipd/platform/auth"
)

// pickupStatuses are the values of the list's status filter (the enum of
// GET /v1/pickups' status parameter in the OpenAPI document).
var pickupStatuses = []string{"ordering", "scheduled", "unconfirmed", "cancelled"}

// pickupsView is the pickup list with the start of the order form.
type pickupsView struct {
	Rows      []pickupRow
	Pager     pager
	Listed    bool // false when the API refused the filters
	Statuses  []option
	Channels  []option // the filter's
	Date      string   // the filter's, as the browser sent it
	Filtered  bool
	OrderFrom []option // the order form's channels
	OrderDate string   // its date: today, by the service's clock (UTC)
}

type pickupRow struct {
	dispatchcontract.Pickup
	ChannelName string
	// Confirmed is what the carrier confirmed when it is not what was
	// asked for: "2026-12-01 10:00–12:00".
	Confirmed string
	// Cancellable: the API takes a cancel of a pickup in this status (it
	// still refuses one the carrier will not cancel, and the page says so).
	Cancellable bool
}

// Window is the window asked for: "09:00–12:00".
func (p pickupRow) Window() string { return p.ReadyFrom + "–" + p.ReadyUntil }

func newPickupRow(p dispatchcontract.Pickup, names map[string]string) pickupRow {
	row := pickupRow{Pickup: p, ChannelName: names[p.ShippingChannelID],
		Cancellable: p.Status == "scheduled" || p.Status == "unconfirmed"}
	c := p.Confirmed
	date, from, until := p.Date, p.ReadyFrom, p.ReadyUntil
	if c.Date != nil {
		date = *c.Date
	}
	if c.ReadyFrom != nil {
		from = *c.ReadyFrom
	}
	if c.ReadyUntil != nil {
		until = *c.ReadyUntil
	}
	if date != p.Date || from != p.ReadyFrom || until != p.ReadyUntil {
		row.Confirmed = date + " " + from + "–" + until
	}
	return row
}

func (d *Dashboard) pickupsPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	v := view{}
	in := r.URL.Query()
	if id, ok := pathID(in.Get("ordered")); ok {
		v.Notice = d.pickupNotice(r, s, id, "ordered")
	} else if id, ok := pathID(in.Get("cancelled")); ok {
		v.Notice = d.pickupNotice(r, s, id, "cancelled")
	}
	d.renderPickups(w, r, s, http.StatusOK, v)
}

// pickupNotice says what became of the pickup the last action ordered or
// cancelled, as the API has it now; "" when the account has no such pickup
// (a link typed or forged: the page then claims nothing).
func (d *Dashboard) pickupNotice(r *http.Request, s auth.Session, id, action string) string {
	var one apiOne[dispatchcontract.Pickup]
	if a, err := d.get(r, s, "/pickups/"+id, &one); err != nil || !a.OK() {
		return ""
	}
	p := one.Data
	when := p.Date + ", " + p.ReadyFrom + "–" + p.ReadyUntil
	switch {
	case action == "cancelled" && p.Status == "cancelled":
		return "The pickup of " + when + " is cancelled."
	case action == "ordered" && p.Status == "scheduled" && p.ConfirmationNumber != nil:
		return "Pickup ordered for " + when + ": the carrier confirmed it as " + *p.ConfirmationNumber + "."
	case action == "ordered" && p.Status == "scheduled":
		return "Pickup ordered for " + when + ": the carrier confirmed it."
	case action == "ordered":
		return "Pickup " + p.ID + " for " + when + " is " + p.Status + "."
	}
	return ""
}

// renderPickups shows the list under v's problem or notice, with status.
func (d *Dashboard) renderPickups(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view) {
	in := r.URL.Query()
	filters := url.Values{"shipping_channel_id": {in.Get("shipping_channel_id")}, "date": {in.Get("date")},
		"status": {in.Get("status")}, "per_page": {in.Get("per_page")}}
	var list apiList[dispatchcontract.Pickup]
	a, err := d.get(r, s, listURL("/pickups", filters, in.Get("page")), &list)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
	case (a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity) && v.Problem == "":
		// Filters the API refuses: its reasons, with the form to correct them.
		p := a.problem()
		v.Problem, v.Fields, status = p.Message, p.Fields, a.Status
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity:
		// The page already says why an action failed; the list is left out.
	default:
		d.apiFailed(w, r, s, a, "pickup")
		return
	}
	channels, ok := d.accountChannels(w, r, s)
	if !ok {
		return
	}
	names := channelNames(channels)
	pv := pickupsView{Listed: a.OK(), Channels: channelChoices(channels, filters.Get("shipping_channel_id")),
		Date: shownText(filters.Get("date")), OrderFrom: channelChoices(activeChannels(channels), ""),
		OrderDate: d.limiter.Now().UTC().Format("2006-01-02"),
		Filtered:  filters.Get("shipping_channel_id") != "" || filters.Get("date") != "" || filters.Get("status") != ""}
	for _, st := range pickupStatuses {
		pv.Statuses = append(pv.Statuses, option{Value: st, Text: st, Selected: st == filters.Get("status")})
	}
	if pv.Listed {
		for _, p := range list.Data {
			pv.Rows = append(pv.Rows, newPickupRow(p, names))
		}
		pv.Pager = newPager("/dashboard/pickups", filters, list.Meta, "pickup")
	}
	v.Title, v.Nav, v.Session, v.Data = "Pickups", "pickups", &s, pv
	d.render(w, status, "pickups", v)
}

// cancelPickup asks the API to cancel the pickup (DELETE /v1/pickups/{id}).
// A carrier that will not cancel it, or a pickup cancelled already, is the
// API's 409, shown over the list.
func (d *Dashboard) cancelPickup(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "pickup")
		return
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodDelete, Path: "/pickups/" + id})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		http.Redirect(w, r, "/dashboard/pickups?cancelled="+id, http.StatusSeeOther)
	case a.Status == http.StatusConflict || a.Status == http.StatusServiceUnavailable || a.Status == http.StatusUnprocessableEntity:
		p := a.problem()
		d.renderPickups(w, r, s, a.Status, view{Problem: "The pickup was not cancelled. " + p.Message, Fields: p.Fields})
	default:
		d.apiFailed(w, r, s, a, "pickup")
	}
}
