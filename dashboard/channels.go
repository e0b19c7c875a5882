package dashboard

import (
	"net/http"

	"github.com/gorilla/mux"

	channelscontract "shipd/modules/channels/contract"
	"shipd/platform/auth"
	"shipd/platform/carrier"
)

// Shipping channels are read, created and validated through the /v1 API
// (ADR 0027): GET and POST /v1/shipping-channels, GET /v1/shipping-channels/{id},
// POST /v1/shipping-channels/{id}/validate, and GET /v1/providers for the
// form's fields. The API decides what is valid and whose a channel is.
// channels_list.go is the list, channel_form.go the form that creates one,
// channel_page.go one channel, channels_api.go the carriers' JSON; a channel
// is read into the channels module's own record.
func (d *Dashboard) registerChannels(r *mux.Router) {
	r.Handle("/dashboard/channels", d.signedIn(d.channelsPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/channels", d.signedIn(d.createChannel)).Methods(http.MethodPost)
	// Before {id}: "new" is a page, not a channel.
	r.Handle("/dashboard/channels/new", d.signedIn(d.newChannelPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/channels/{id}", d.signedIn(d.channelPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/channels/{id}/validate", d.signedIn(d.validateChannel)).Methods(http.MethodPost)
}

// providers reads GET /v1/providers; ok is false when the page was answered
// already (the call failed).
func (d *Dashboard) providers(w http.ResponseWriter, r *http.Request, s auth.Session) ([]apiProvider, bool) {
	var body apiList[apiProvider]
	ok := d.read(w, r, s, "/providers", &body, "carrier")
	return body.Data, ok
}

// providerByCode finds code among providers.
func providerByCode(providers []apiProvider, code string) (apiProvider, bool) {
	for _, p := range providers {
		if p.Code == code {
			return p, true
		}
	}
	return apiProvider{}, false
}

// providerName is the carrier's name for its code, the code when the
// carrier is no longer offered.
func providerName(providers []apiProvider, code string) string {
	if p, ok := providerByCode(providers, code); ok {
		return p.Name
	}
	return code
}

// validationProblem is what the carrier said at the channel's last failed
// validation, "" when nothing.
func validationProblem(c channelscontract.ShippingChannel) string {
	if c.ValidationError == nil {
		return ""
	}
	return *c.ValidationError
}

// defaultLabelFormat is the label format of the channel's shipments that
// name none, by the rule the shipments module applies (carrier's
// LabelFormat); "(provider default)" when the channel's settings name none.
func defaultLabelFormat(c channelscontract.ShippingChannel) string {
	f, own := carrier.Settings(c.Settings).DefaultLabelFormat()
	if !own {
		f += " (provider default)"
	}
	return f
}
