package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	dispatchcontract "shipd/modules/dispatch/contract"
	"shipd/platform/auth"
)

// Manifests hand a channel's shipments to the carrier's driver: made of
// every created shipment of the channel on no manifest yet (one button on
// the list), or of the ones ticked (GET /dashboard/manifests/new); their
// document, a PDF, is downloaded through the dashboard as labels are.

// manifestsView is the manifest list with the forms that make one.
type manifestsView struct {
	Rows     []manifestRow
	Pager    pager
	Listed   bool // false when the API refused the filters
	Channels []option
	Date     string
	Filtered bool
	MakeFrom []option // the channels of the forms that make one
}

type manifestRow struct {
	dispatchcontract.Manifest
	ChannelName string
}

// Weight shows the total weight without trailing zeros: "4.5 kg".
func (m manifestRow) Weight() string { return measurement(m.TotalWeightKG) + " kg" }

func (d *Dashboard) manifestsPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	v := view{}
	if id, ok := pathID(r.URL.Query().Get("made")); ok {
		var one apiOne[dispatchcontract.Manifest]
		if a, err := d.get(r, s, "/manifests/"+id, &one); err == nil && a.OK() {
			m := one.Data
			v.Notice = "Manifest made: " + plural(m.ShipmentCount, "shipment") + " with " + plural(m.ParcelCount, "parcel") +
				" handed over. Print its document for the driver to sign."
		}
	}
	d.renderManifests(w, r, s, http.StatusOK, v)
}

// plural is n with its noun: "1 parcel", "3 parcels".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// renderManifests shows the list under v's problem or notice, with status.
func (d *Dashboard) renderManifests(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view) {
	in := r.URL.Query()
	filters := url.Values{"shipping_channel_id": {in.Get("shipping_channel_id")}, "date": {in.Get("date")}, "per_page": {in.Get("per_page")}}
	var list apiList[dispatchcontract.Manifest]
	a, err := d.get(r, s, listURL("/manifests", filters, in.Get("page")), &list)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
	case (a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity) && v.Problem == "":
		p := a.problem()
		v.Problem, v.Fields, status = p.Message, p.Fields, a.Status
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity:
	default:
		d.apiFailed(w, r, s, a, "manifest")
		return
	}
	channels, ok := d.accountChannels(w, r, s)
	if !ok {
		return
	}
	names := channelNames(channels)
	mv := manifestsView{Listed: a.OK(), Channels: channelChoices(channels, filters.Get("shipping_channel_id")),
		Date: shownText(filters.Get("date")), MakeFrom: channelChoices(activeChannels(channels), ""),
		Filtered: filters.Get("shipping_channel_id") != "" || filters.Get("date") != ""}
	if mv.Listed {
		for _, m := range list.Data {
			mv.Rows = append(mv.Rows, manifestRow{Manifest: m, ChannelName: names[m.ShippingChannelID]})
		}
		mv.Pager = newPager("/dashboard/manifests", filters, list.Meta, "manifest")
	}
	v.Title, v.Nav, v.Session, v.Data = "Manifests", "manifests", &s, mv
	d.render(w, status, "manifests", v)
}

// manifestFormView is the page that makes a manifest of the shipments ticked.
type manifestFormView struct {
	Channels   []option
	ChannelID  string
	Shipments  []shipmentChoice
	Incomplete bool
}

func (d *Dashboard) newManifestPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	d.renderManifestForm(w, r, s, http.StatusOK, view{}, r.URL.Query().Get("shipping_channel_id"), nil, nil)
}

// renderManifestForm shows the channel's created shipments on no manifest,
// every one ticked, or those of ticked (a refused form's) with reasons.
func (d *Dashboard) renderManifestForm(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view,
	channelID string, ticked []string, reasons map[string][]string) {
	channels, ok := d.accountChannels(w, r, s)
	if !ok {
		return
	}
	fv := manifestFormView{Channels: channelChoices(channels, channelID), ChannelID: shownText(channelID)}
	if channelID != "" {
		taken, ok := d.manifestsTaken(w, r, s, channelID)
		if !ok {
			return
		}
		open, complete, ok := d.openShipments(w, r, s, channelID, taken)
		if !ok {
			return
		}
		if ticked != nil {
			open = tickOnly(open, ticked, reasons)
		}
		fv.Shipments, fv.Incomplete = open, !complete
	}
	v.Title, v.Nav, v.Session, v.Data = "Make a manifest", "manifests", &s, fv
	d.render(w, status, "manifests_new", v)
}

// makeManifest asks the API for a manifest (POST /v1/manifests) of the
// channel's shipments on none yet, or of those ticked (chosen=1: ticking
// none is then refused by the API, never taken for "all").
func (d *Dashboard) makeManifest(w http.ResponseWriter, r *http.Request, s auth.Session) {
	channelID := r.PostFormValue("shipping_channel_id")
	chosen := r.PostFormValue("chosen") != ""
	body := map[string]any{"shipping_channel_id": channelID}
	ticked := append([]string{}, r.PostForm["shipment_ids"]...)
	if chosen {
		body["shipment_ids"] = ticked
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodPost, Path: "/manifests", Body: body})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		var created apiOne[dispatchcontract.Manifest]
		if err := a.decode(&created); err != nil {
			d.failed(w, r, err)
			return
		}
		id, _ := pathID(created.Data.ID)
		http.Redirect(w, r, "/dashboard/manifests?made="+id, http.StatusSeeOther)
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity ||
		a.Status == http.StatusConflict || a.Status == http.StatusServiceUnavailable:
		p := a.problem()
		v := view{Problem: "No manifest was made. " + p.Message, Fields: p.Fields}
		if chosen {
			d.renderManifestForm(w, r, s, a.Status, v, channelID, ticked, p.Reasons)
			return
		}
		d.renderManifests(w, r, s, a.Status, v)
	default:
		d.apiFailed(w, r, s, a, "manifest")
	}
}

// manifestDocument answers the manifest's PDF as the API has it, to save.
func (d *Dashboard) manifestDocument(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "manifest")
		return
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodGet, Path: "/manifests/" + id + "/document"})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
	case a.Status == http.StatusConflict:
		// Still being made: the API says so.
		d.render(w, http.StatusConflict, "home", view{Title: "No document yet", Nav: "manifests", Session: &s, Problem: a.problem().Message})
		return
	default:
		d.apiFailed(w, r, s, a, "manifest")
		return
	}
	disposition := a.Header.Get("Content-Disposition")
	if !strings.HasPrefix(disposition, "attachment") {
		disposition = `attachment; filename="` + id + `.pdf"`
	}
	contentType := a.Header.Get("Content-Type")
	if contentType == "" {
		contentType = "application/pdf"
	}
	w.Header().Set("Content-Disposition", disposition)
	answerFile(w, contentType, a.Body)
}
