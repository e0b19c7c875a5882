package dashboard

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	channelscontract "shipd/modules/channels/contract"
	"shipd/platform/auth"
	"shipd/platform/carrier"
)

// The form that orders a pickup comes in two steps on one page: the channel
// and the date (GET /dashboard/pickups/new), then, once the carrier named
// its windows for them, the window, the shipments and the rest, posted to
// /dashboard/pickups. An address or contact left blank is not sent: the API
// then takes the first shipment's origin and sender, else the channel's
// newest shipment's.

// availability is GET /v1/shipping-channels/{id}/pickup-availability's
// answer: the module publishes no record of it, and its windows are the
// carrier port's.
type availability struct {
	ShippingChannelID string                 `json:"shipping_channel_id"`
	Date              string                 `json:"date"`
	Source            string                 `json:"source"` // carrier or channel_defaults
	Windows           []carrier.PickupWindow `json:"windows"`
}

// The address and contact fields, in the API's names and order.
var (
	addressFields = []formField{{Name: "street_name", Label: "Street"}, {Name: "house_number", Label: "House number"},
		{Name: "apartment_number", Label: "Apartment"}, {Name: "city_name", Label: "City"},
		{Name: "postal_code", Label: "Postal code"}, {Name: "country_code", Label: "Country (ISO code)"}}
	contactFields = []formField{{Name: "company_name", Label: "Company"}, {Name: "first_name", Label: "First name"},
		{Name: "last_name", Label: "Last name"}, {Name: "email_address", Label: "E-mail address"},
		{Name: "phone_number", Label: "Phone number"}}
)

// formField is one text input of a group ("address.city_name").
type formField struct {
	Name, Label string
	Path        string // group.name: the input's name and the API's field
	Value       string
	Reasons     []string
}

// windowChoice is one window the carrier offers.
type windowChoice struct {
	carrier.PickupWindow
	Selected bool
}

// Value is the radio button's value: "09:00-12:00".
func (c windowChoice) Value() string { return c.From + "-" + c.Until }

// pickupForm is the form as it was sent (or first shown).
type pickupForm struct {
	ChannelID, Date, Window  string
	ShipmentIDs              []string // nil: not sent yet, every open shipment ticked
	ParcelCount, TotalWeight string
	Address, Contact         map[string]string
	Note                     string
}

func pickupFormOf(values map[string][]string, sent bool) pickupForm {
	get := func(k string) string {
		if v := values[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	f := pickupForm{ChannelID: get("shipping_channel_id"), Date: get("date"), Window: get("window"),
		ParcelCount: get("parcel_count"), TotalWeight: get("total_weight_kg"), Note: get("note"),
		Address: map[string]string{}, Contact: map[string]string{}}
	if sent {
		f.ShipmentIDs = append([]string{}, values["shipment_ids"]...)
	}
	for _, ff := range addressFields {
		f.Address[ff.Name] = get("address." + ff.Name)
	}
	for _, ff := range contactFields {
		f.Contact[ff.Name] = get("contact." + ff.Name)
	}
	return f
}

// group is the fields of a group ("address") with what was typed and the
// API's reasons.
func group(name string, fields []formField, typed map[string]string, reasons map[string][]string) []formField {
	out := make([]formField, len(fields))
	for i, f := range fields {
		f.Path = name + "." + f.Name
		f.Value, f.Reasons = shownText(typed[f.Name]), reasons[f.Path]
		out[i] = f
	}
	return out
}

// pickupFormView is the order page.
type pickupFormView struct {
	Channels     []option
	ChannelID    string
	Date         string
	ProviderName string
	// Chosen: the carrier named its windows for the channel and date, and
	// the rest of the form shows.
	Chosen     bool
	Source     string // where the windows come from: carrier, channel_defaults
	Windows    []windowChoice
	Shipments  []shipmentChoice
	Incomplete bool // more open shipments than the form read
	// Counts: the carrier takes a parcel count and weight instead of named
	// shipments (GET /v1/providers' dispatch.pickup_shipments).
	Counts                   bool
	ParcelCount, TotalWeight string
	Address, Contact         []formField
	Note                     string
	Reasons                  map[string][]string // field → the API's reasons
}

// ReasonsFor are the API's reasons against a field.
func (v pickupFormView) ReasonsFor(field string) []string { return v.Reasons[field] }

func (d *Dashboard) newPickupPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	f := pickupFormOf(r.URL.Query(), false)
	if f.Date == "" {
		f.Date = d.limiter.Now().UTC().Format("2006-01-02")
	}
	d.renderPickupForm(w, r, s, http.StatusOK, view{}, f, nil)
}

// renderPickupForm shows the form as f has it, under v. With a channel and a
// date it asks the API for the windows; their refusal (a date in the past,
// a channel without pickups or not active, a carrier that cannot be reached)
// is shown over the first step, unless v already says why the order failed.
func (d *Dashboard) renderPickupForm(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view, f pickupForm, reasons map[string][]string) {
	channels, ok := d.accountChannels(w, r, s)
	if !ok {
		return
	}
	fv := pickupFormView{Channels: channelChoices(channels, f.ChannelID), ChannelID: shownText(f.ChannelID), Date: shownText(f.Date),
		ParcelCount: shownText(f.ParcelCount), TotalWeight: shownText(f.TotalWeight), Note: shownText(f.Note), Reasons: reasons,
		Address: group("address", addressFields, f.Address, reasons), Contact: group("contact", contactFields, f.Contact, reasons)}
	v.Title, v.Nav, v.Session = "Order a pickup", "pickups", &s
	if f.ChannelID != "" && f.Date != "" {
		if !d.addWindows(w, r, s, &v, &status, &fv, f, channels) {
			return
		}
	}
	v.Data = fv
	d.render(w, status, "pickups_new", v)
}

// addWindows puts the carrier's windows for the form's channel and date on
// it, and the channel's created shipments on no pickup yet. ok is false when
// the page was answered already.
func (d *Dashboard) addWindows(w http.ResponseWriter, r *http.Request, s auth.Session, v *view, status *int, fv *pickupFormView,
	f pickupForm, channels []channelscontract.ShippingChannel) bool {
	id, ok := pathID(f.ChannelID)
	if !ok {
		d.notYours(w, s, "shipping channel")
		return false
	}
	var got apiOne[availability]
	a, err := d.get(r, s, "/shipping-channels/"+id+"/pickup-availability?"+url.Values{"date": {f.Date}}.Encode(), &got)
	switch {
	case err != nil:
		d.failed(w, r, err)
		return false
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity ||
		a.Status == http.StatusConflict || a.Status == http.StatusServiceUnavailable:
		// A date the API refuses, a channel that takes no pickups or is not
		// active, a carrier that cannot be asked: said over the first step.
		if v.Problem == "" {
			p := a.problem()
			v.Problem, v.Fields, *status, fv.Reasons = "No windows to choose from. "+p.Message, p.Fields, a.Status, p.Reasons
		}
		return true
	case !a.OK():
		d.apiFailed(w, r, s, a, "shipping channel")
		return false
	}
	providers, ok := d.providers(w, r, s)
	if !ok {
		return false
	}
	fv.Counts = true
	for _, c := range channels {
		if c.ID == id {
			p, known := providerByCode(providers, c.Provider)
			fv.ProviderName = providerName(providers, c.Provider)
			fv.Counts = !known || p.Dispatch.PickupShipments != carrier.PickupNamesShipments
		}
	}
	fv.Source = got.Data.Source
	for _, win := range got.Data.Windows {
		c := windowChoice{PickupWindow: win}
		c.Selected = c.Value() == f.Window
		fv.Windows = append(fv.Windows, c)
	}
	fv.Chosen = true
	if len(fv.Windows) == 0 {
		return true // the page says the carrier collects on no window then
	}
	taken, ok := d.pickupsTaken(w, r, s, id)
	if !ok {
		return false
	}
	open, complete, ok := d.openShipments(w, r, s, id, taken)
	if !ok {
		return false
	}
	if f.ShipmentIDs != nil {
		open = tickOnly(open, f.ShipmentIDs, fv.Reasons)
	}
	fv.Shipments, fv.Incomplete = open, !complete
	return true
}

func (d *Dashboard) orderPickup(w http.ResponseWriter, r *http.Request, s auth.Session) {
	f := pickupFormOf(r.PostForm, true)
	from, until, _ := strings.Cut(f.Window, "-")
	body := map[string]any{"shipping_channel_id": f.ChannelID, "date": f.Date, "ready_from": from, "ready_until": until}
	if len(f.ShipmentIDs) > 0 {
		body["shipment_ids"] = f.ShipmentIDs
	}
	if f.ParcelCount != "" {
		body["parcel_count"] = number(f.ParcelCount, true)
	}
	if f.TotalWeight != "" {
		body["total_weight_kg"] = number(f.TotalWeight, false)
	}
	if typed := typedGroup(f.Address); typed != nil {
		body["address"] = typed
	}
	if typed := typedGroup(f.Contact); typed != nil {
		body["contact"] = typed
	}
	if f.Note != "" {
		body["note"] = f.Note
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodPost, Path: "/pickups", Body: body})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		var created apiOne[struct {
			ID string `json:"id"`
		}]
		if err := a.decode(&created); err != nil {
			d.failed(w, r, err)
			return
		}
		id, _ := pathID(created.Data.ID)
		http.Redirect(w, r, "/dashboard/pickups?ordered="+id, http.StatusSeeOther)
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity ||
		a.Status == http.StatusConflict || a.Status == http.StatusServiceUnavailable:
		// The API's reasons by their fields; a channel not active (409) or a
		// carrier that could not be reached (503) over the form, kept to
		// send again.
		p := a.problem()
		d.renderPickupForm(w, r, s, a.Status, view{Problem: "The pickup was not ordered. " + p.Message, Fields: p.Fields}, f, p.Reasons)
	default:
		d.apiFailed(w, r, s, a, "pickup")
	}
}

// number is a typed count or weight as the API takes it, or the text as it
// was typed, for the API to refuse with its own words.
func number(typed string, integer bool) any {
	t := strings.TrimSpace(typed)
	if integer {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n
		}
		return typed
	}
	// NaN and infinity are no JSON; the API hears the text instead.
	if x, err := strconv.ParseFloat(t, 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
		return x
	}
	return typed
}

// typedGroup is an address or contact to send: every field as typed when
// any was, nil when all were left blank (the API's defaults stand).
func typedGroup(fields map[string]string) map[string]any {
	typed := false
	out := map[string]any{}
	for k, v := range fields {
		out[k] = v
		typed = typed || strings.TrimSpace(v) != ""
	}
	if !typed {
		return nil
	}
	return out
}
