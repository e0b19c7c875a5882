package dashboard

import (
	"net/http"
	"slices"

	"github.com/gorilla/mux"

	channelscontract "shipd/modules/channels/contract"
	"shipd/platform/auth"
)

// channelView is one channel's page.
type channelView struct {
	Channel      channelscontract.ShippingChannel
	Problem      string // the carrier's last refusal (validationProblem): the record has no such method
	ProviderName string
	LabelFormat  string
	Settings     []settingRow
}

type settingRow struct {
	Key, Value, Description, Default string
	Secret, Set                      bool
}

// settingRows are the channel's settings in the provider's order, then any
// the provider no longer describes. Values are the API's: secrets masked.
func settingRows(c channelscontract.ShippingChannel, p apiProvider, known bool) []settingRow {
	var rows []settingRow
	seen := map[string]bool{}
	if known {
		for _, st := range p.Settings {
			v, set := c.Settings[st.Key]
			seen[st.Key] = true
			rows = append(rows, settingRow{Key: st.Key, Value: shownValue(v), Description: st.Description,
				Default: st.DefaultText(), Secret: st.Secret, Set: set && v != nil})
		}
	}
	var rest []string
	for k := range c.Settings {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		rows = append(rows, settingRow{Key: k, Value: shownValue(c.Settings[k]), Set: c.Settings[k] != nil})
	}
	return rows
}

func (d *Dashboard) channelPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	var c apiOne[channelscontract.ShippingChannel]
	if _, ok := d.readURLs(w, r, s, "/shipping-channels", &c, "shipping channel"); !ok {
		return
	}
	v := view{}
	if r.URL.Query().Get("created") != "" {
		v.Notice = "The channel was created as a draft. Validate it with the carrier to make it active."
	}
	d.renderChannel(w, r, s, http.StatusOK, v, c.Data)
}

func (d *Dashboard) renderChannel(w http.ResponseWriter, r *http.Request, s auth.Session, status int, v view, c channelscontract.ShippingChannel) {
	providers, ok := d.providers(w, r, s)
	if !ok {
		return
	}
	p, known := providerByCode(providers, c.Provider)
	cv := channelView{Channel: c, Problem: validationProblem(c), ProviderName: providerName(providers, c.Provider),
		LabelFormat: defaultLabelFormat(c), Settings: settingRows(c, p, known)}
	v.Title, v.Nav, v.Session, v.Data = c.Name, "channels", &s, cv
	d.render(w, status, "channels_show", v)
}

func (d *Dashboard) validateChannel(w http.ResponseWriter, r *http.Request, s auth.Session) {
	id, ok := pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, "shipping channel")
		return
	}
	a, err := d.call(r, s, apiCall{Method: http.MethodPost, Path: "/shipping-channels/" + id + "/validate"})
	if err != nil {
		d.failed(w, r, err)
		return
	}
	switch {
	case a.OK():
		var got apiOne[channelscontract.ShippingChannel]
		if err := a.decode(&got); err != nil {
			d.failed(w, r, err)
			return
		}
		d.renderChannel(w, r, s, http.StatusOK,
			view{Notice: "Valid: the carrier accepted the channel's settings, and the channel is " + got.Data.Status + "."}, got.Data)
	case a.Status == http.StatusUnprocessableEntity || a.Status == http.StatusConflict || a.Status == http.StatusServiceUnavailable:
		// The carrier refused (the channel now records why), the settings
		// changed meanwhile, or the carrier could not be asked: the page
		// shows the channel as it is now, under the API's words.
		var c apiOne[channelscontract.ShippingChannel]
		if !d.read(w, r, s, "/shipping-channels/"+id, &c, "shipping channel") {
			return
		}
		p := a.problem()
		d.renderChannel(w, r, s, a.Status, view{Problem: p.Message, Fields: p.Fields}, c.Data)
	default:
		d.apiFailed(w, r, s, a, "shipping channel")
	}
}
