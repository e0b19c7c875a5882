package dashboard

import (
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	webhookscontract "shipd/modules/webhooks/contract"
	"shipd/platform/auth"
)

// webhookView is a subscription with a page of its delivery log.
type webhookView struct {
	Subscription webhookscontract.Subscription
	Logs         []webhookscontract.DeliveryLog
	Pager        pager
	Status       string // the filters
	EventType    string
	EventTypes   []string
	Filtered     bool
}

// webhookLogView is one attempt in full.
type webhookLogView struct {
	Log webhookscontract.DeliveryLog
}

func (d *Dashboard) webhookPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	var sub apiOne[webhookscontract.Subscription]
	id, ok := d.readURLs(w, r, s, "/webhook-subscriptions", &sub, "webhook subscription")
	if !ok {
		return
	}
	in := r.URL.Query()
	wv := webhookView{Subscription: sub.Data, Status: in.Get("status"), EventType: in.Get("event_type"), EventTypes: webhookEventTypes()}
	wv.Filtered = wv.Status != "" || wv.EventType != ""
	filters := url.Values{"status": {wv.Status}, "event_type": {wv.EventType}}
	var logs apiList[webhookscontract.DeliveryLog]
	v := view{Title: "Webhook " + sub.Data.Name, Nav: "webhooks", Session: &s}
	status := http.StatusOK
	a, err := d.get(r, s, listURL("/webhook-subscriptions/"+id+"/logs", filters, in.Get("page")), &logs)
	switch {
	case err != nil:
		d.failed(w, r, err)
		return
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity:
		// A filter or page the API refuses: the page stays, with its reasons.
		p := a.problem()
		v.Problem, v.Fields, status = p.Message, p.Fields, a.Status
	case !a.OK():
		d.apiFailed(w, r, s, a, "webhook subscription")
		return
	default:
		wv.Logs = logs.Data
		wv.Pager = newPager("/dashboard/webhooks/"+id, filters, logs.Meta, "delivery attempt")
	}
	v.Data = wv
	d.render(w, status, "webhooks_detail", v)
}

func (d *Dashboard) webhookLogPage(w http.ResponseWriter, r *http.Request, s auth.Session) {
	vars := mux.Vars(r)
	id, ok := pathID(vars["id"])
	logID, logOK := pathID(vars["log_id"])
	if !ok || !logOK {
		d.notYours(w, s, "webhook delivery log")
		return
	}
	var one apiOne[webhookscontract.DeliveryLog]
	if !d.read(w, r, s, "/webhook-subscriptions/"+id+"/logs/"+logID, &one, "webhook delivery log") {
		return
	}
	if one.Data.ID != logID || one.Data.WebhookSubscriptionID != id {
		// The API answers only the subscription's own log; never show another.
		d.notYours(w, s, "webhook delivery log")
		return
	}
	d.render(w, http.StatusOK, "webhooks_log", view{Title: "Delivery " + logID, Nav: "webhooks", Session: &s,
		Data: webhookLogView{Log: one.Data}})
}
