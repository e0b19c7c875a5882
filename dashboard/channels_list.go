package dashboard

import (
	"net/http"
	"net/url"

	channelscontract "shipd/modules/channels/contract"
	"shipd/platform/auth"
)

// channelStatuses are the statuses GET /v1/shipping-channels filters by.
var channelStatuses = []string{"draft", "active", "error", "inactive"}

// channelsListView is the list page.
type channelsListView struct {
	Rows      []channelRow
	Pager     pager
	Providers []apiProvider
	Status    string // the filters, kept in the pager's links
	Provider  string
	PerPage   string
	Statuses  []string
}

type channelRow struct {
	channelscontract.ShippingChannel
	Problem      string // the carrier's last refusal (validationProblem): the record has no such method
	ProviderName string
	LabelFormat  string
}

func (d *Dashboard) channelsPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	in := r.URL.Query()
	filters := url.Values{"status": {in.Get("status")}, "provider": {in.Get("provider")}, "per_page": {in.Get("per_page")}}
	var list apiList[channelscontract.ShippingChannel]
	if !d.read(w, r, s, listURL("/shipping-channels", filters, in.Get("page")), &list, "shipping channel") {
		return
	}
	providers, ok := d.providers(w, r, s)
	if !ok {
		return
	}
	lv := channelsListView{Pager: newPager("/dashboard/channels", filters, list.Meta, "channel"), Providers: providers,
		Status: filters.Get("status"), Provider: filters.Get("provider"), PerPage: filters.Get("per_page"), Statuses: channelStatuses}
	for _, c := range list.Data {
		lv.Rows = append(lv.Rows, channelRow{ShippingChannel: c, Problem: validationProblem(c), ProviderName: providerName(providers, c.Provider),
			LabelFormat: defaultLabelFormat(c)})
	}
	d.render(w, http.StatusOK, "channels", view{Title: "Shipping channels", Nav: "channels", Session: &s, Data: lv})
}
