package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	channelscontract "shipd/modules/channels/contract"
	dispatchcontract "shipd/modules/dispatch/contract"
	shipmentscontract "shipd/modules/shipments/contract"
	"shipd/platform/auth"
)

// The shipping day: courier pickups and handover manifests, ordered, made,
// cancelled and downloaded through /v1/pickups, /v1/manifests and
// GET /v1/shipping-channels/{id}/pickup-availability (ADR 0027). The API
// decides which shipments a pickup or manifest may take; the pages only
// offer the likely ones. pickups.go is the pickup list and its cancel,
// pickup_form.go the order form, manifests.go the manifests. The answers are
// read into the dispatch module's own records (its contract package).
func (d *Dashboard) registerDispatch(r *mux.Router) {
	r.Handle("/dashboard/pickups", d.signedIn(d.pickupsPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/pickups", d.signedIn(d.orderPickup)).Methods(http.MethodPost)
	// Before {id}: "new" is a page, not a pickup.
	r.Handle("/dashboard/pickups/new", d.signedIn(d.newPickupPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/pickups/{id}/cancel", d.signedIn(d.cancelPickup)).Methods(http.MethodPost)
	r.Handle("/dashboard/manifests", d.signedIn(d.manifestsPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/manifests", d.signedIn(d.makeManifest)).Methods(http.MethodPost)
	r.Handle("/dashboard/manifests/new", d.signedIn(d.newManifestPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/manifests/{id}/document", d.signedIn(d.manifestDocument)).Methods(http.MethodGet)
}

// Caps on the lists a form reads to offer shipments, of 100 items each:
// past them the form says some were left out (a pickup takes at most 500
// shipments; a manifest made of "every shipment" takes them all anyway).
const (
	openShipmentPages = 5 // the channel's created shipments
	takenPages        = 5 // its pickups or manifests, newest first, whose shipments are taken
)

// channelChoices are the account's channels as a select offers them, with
// selected kept even when it names none of them (deleted since, typed into
// the address).
func channelChoices(channels []channelscontract.ShippingChannel, selected string) []option {
	var out []option
	found := false
	for _, c := range channels {
		out = append(out, option{Value: c.ID, Text: c.Name + " (" + c.Provider + ")", Selected: c.ID == selected})
		found = found || c.ID == selected
	}
	if selected != "" && !found {
		out = append(out, option{Value: selected, Text: shownText(selected) + " (no such channel)", Selected: true})
	}
	return out
}

// activeChannels are the channels a pickup or a manifest can be made on:
// the active ones (the API refuses the others).
func activeChannels(channels []channelscontract.ShippingChannel) []channelscontract.ShippingChannel {
	var out []channelscontract.ShippingChannel
	for _, c := range channels {
		if c.Status == "active" {
			out = append(out, c)
		}
	}
	return out
}

// channelNames maps the channels' ids to their names.
func channelNames(channels []channelscontract.ShippingChannel) map[string]string {
	names := make(map[string]string, len(channels))
	for _, c := range channels {
		names[c.ID] = c.Name
	}
	return names
}

// shipmentChoice is a shipment a form offers to tick.
type shipmentChoice struct {
	ID, Reference, CarrierID string
	CreatedAt                time.Time
	Ticked                   bool
	Reasons                  []string // the API's, against this shipment
}

// openShipments are the channel's created shipments (the only ones a
// carrier collects or takes on a manifest) that taken does not hold, as
// choices ticked; complete is false when the form could not read them all.
// ok is false when the page was answered already.
func (d *Dashboard) openShipments(w http.ResponseWriter, r *http.Request, s auth.Session, channelID string, taken map[string]bool) (choices []shipmentChoice, complete, ok bool) {
	q := url.Values{"status": {"created"}, "shipping_channel_id": {channelID}}
	created, complete, ok := readPages[shipmentscontract.Summary](d, w, r, s, "/shipments?"+q.Encode(), openShipmentPages, "shipment")
	if !ok {
		return nil, false, false
	}
	for _, sh := range created {
		if !taken[sh.ID] {
			choices = append(choices, shipmentChoice{ID: sh.ID, Reference: sh.ReferenceNumber, CarrierID: carrierID(sh.ProviderShipmentID),
				CreatedAt: sh.CreatedAt, Ticked: true})
		}
	}
	return choices, complete, true
}

// tickOnly leaves ticked the choices whose ids are in ids (a refused form's),
// puts the API's reasons against each ("shipment_ids.2": the third id sent)
// and answers the ids sent that the list does not hold, with their reasons
// (a shipment taken meanwhile, a forged id), so the page still shows them.
func tickOnly(choices []shipmentChoice, ids []string, reasons map[string][]string) []shipmentChoice {
	for i := range choices {
		choices[i].Ticked = slices.Contains(ids, choices[i].ID)
	}
	for n, id := range ids {
		why := reasons["shipment_ids."+strconv.Itoa(n)]
		i := slices.IndexFunc(choices, func(c shipmentChoice) bool { return c.ID == id })
		if i < 0 {
			choices = append(choices, shipmentChoice{ID: shownText(id), Ticked: true, Reasons: why})
			continue
		}
		choices[i].Reasons = append(choices[i].Reasons, why...)
	}
	return choices
}

// pickupsTaken are the shipments on the channel's pickups that are not
// cancelled (the API refuses a shipment on two of them). The lists are read
// models: moments after a pickup or manifest was made they may not hold it
// yet, and a form then offers its shipments; the API refuses them, and the
// page says so by their rows.
func (d *Dashboard) pickupsTaken(w http.ResponseWriter, r *http.Request, s auth.Session, channelID string) (map[string]bool, bool) {
	pickups, _, ok := readPages[dispatchcontract.Pickup](d, w, r, s, "/pickups?"+url.Values{"shipping_channel_id": {channelID}}.Encode(), takenPages, "pickup")
	if !ok {
		return nil, false
	}
	taken := map[string]bool{}
	for _, p := range pickups {
		if p.Status != "cancelled" {
			for _, id := range p.ShipmentIDs {
				taken[id] = true
			}
		}
	}
	return taken, true
}

// manifestsTaken are the shipments on the channel's manifests.
func (d *Dashboard) manifestsTaken(w http.ResponseWriter, r *http.Request, s auth.Session, channelID string) (map[string]bool, bool) {
	manifests, _, ok := readPages[dispatchcontract.Manifest](d, w, r, s, "/manifests?"+url.Values{"shipping_channel_id": {channelID}}.Encode(), takenPages, "manifest")
	if !ok {
		return nil, false
	}
	taken := map[string]bool{}
	for _, m := range manifests {
		for _, id := range m.ShipmentIDs {
			taken[id] = true
		}
	}
	return taken, true
}
