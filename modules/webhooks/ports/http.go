// Package ports is the webhooks module's driving side: its HTTP routes, its
// handlers of the other modules' events and its workers.
package ports

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/ids"
)

// HTTPServer serves /v1/webhook-subscriptions.
type HTTPServer struct {
	app     app.Application
	baseURL string
	clock   clock.Clock // dates the ids of new subscriptions
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links).
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, baseURL: cfg.PublicBaseURL, clock: clk}
}

// Register adds the routes to the authenticated /v1 router.
func (h HTTPServer) Register(r *mux.Router) {
	r.Handle("/webhook-subscriptions", auth.Require(auth.WebhooksWrite, h.create)).Methods(http.MethodPost)
	r.Handle("/webhook-subscriptions", auth.Require(auth.WebhooksRead, h.list)).Methods(http.MethodGet)
	r.Handle("/webhook-subscriptions/{id}", auth.Require(auth.WebhooksRead, h.get)).Methods(http.MethodGet)
	r.Handle("/webhook-subscriptions/{id}", auth.Require(auth.WebhooksWrite, h.update)).Methods(http.MethodPut, http.MethodPatch)
	r.Handle("/webhook-subscriptions/{id}", auth.Require(auth.WebhooksWrite, h.delete)).Methods(http.MethodDelete)
	r.Handle("/webhook-subscriptions/{id}/logs", auth.Require(auth.WebhooksRead, h.logs)).Methods(http.MethodGet)
	r.Handle("/webhook-subscriptions/{id}/logs/{log_id}", auth.Require(auth.WebhooksRead, h.log)).Methods(http.MethodGet)
}

// created is the 201 body: the secret shipd generated, if it did, appears
// here once and never again.
type created struct {
	Data            contract.Subscription `json:"data"`
	Message         string                `json:"message"`
	GeneratedSecret *string               `json:"generated_secret,omitempty"`
}

func (h HTTPServer) create(w http.ResponseWriter, r *http.Request) {
	var req subscriptionRequest
	if err := httpapi.Decode(r, &req); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	c, err := req.read(r.Method)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	// A secret shipd makes is shown in this answer only, so it is made
	// here, where the answer is written.
	f, generated := fields(c, req.Secret != nil), ""
	if req.Secret == nil {
		generated = f.Secret
	}
	accountID, id := auth.RequestPrincipal(r).AccountID, ids.NewAt(ids.WebhookSub, h.clock.Now())
	err = h.app.Commands.CreateSubscription.Handle(r.Context(), command.CreateSubscription{AccountID: accountID, SubscriptionID: id, Fields: f})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	sub, err := h.app.Queries.GetSubscription.Handle(r.Context(), query.GetSubscription{AccountID: accountID, ID: id})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	body := created{Data: sub, Message: "Webhook subscription created successfully"}
	if generated != "" {
		body.GeneratedSecret = &generated
	}
	w.Header().Set("Location", httpapi.BaseURL(r, h.baseURL)+"/v1/webhook-subscriptions/"+id)
	httpapi.WriteJSON(w, http.StatusCreated, body)
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	errs := fault.FieldErrors{}
	page := httpapi.PageParams(r.URL.Query(), errs)
	if err := errs.Err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteListed(w, r, h.app.Queries.ListSubscriptions, query.ListSubscriptions{
		AccountID: auth.RequestPrincipal(r).AccountID, Offset: page.Offset(), Limit: page.PerPage}, page, h.baseURL)
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	id, ok := subscriptionID(w, r)
	if !ok {
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetSubscription, query.GetSubscription{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}, http.StatusOK, "")
}

// update is PUT (name required, as the spec says) and PATCH (nothing
// required); absent fields, and an empty secret, keep their values.
func (h HTTPServer) update(w http.ResponseWriter, r *http.Request) {
	id, ok := subscriptionID(w, r)
	if !ok {
		return
	}
	var req subscriptionRequest
	if err := httpapi.Decode(r, &req); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	c, err := req.read(r.Method)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err = h.app.Commands.UpdateSubscription.Handle(r.Context(), command.UpdateSubscription{AccountID: accountID, ID: id, Change: c})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetSubscription, query.GetSubscription{AccountID: accountID, ID: id}, http.StatusOK, "Webhook subscription updated successfully")
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	id, ok := subscriptionID(w, r)
	if !ok {
		return
	}
	if err := h.app.Commands.DeleteSubscription.Handle(r.Context(), command.DeleteSubscription{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h HTTPServer) logs(w http.ResponseWriter, r *http.Request) {
	id, ok := subscriptionID(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	errs := fault.FieldErrors{}
	page := httpapi.PageParams(q, errs)
	status, eventType := q.Get("status"), q.Get("event_type")
	if status != "" && status != domain.LogSuccess && status != domain.LogFailed {
		errs.Add("status", "must be one of: success, failed")
	}
	if eventType != "" && !slices.Contains(app.EventTypes, eventType) {
		errs.Add("event_type", "must be one of: "+strings.Join(app.EventTypes, ", "))
	}
	if err := errs.Err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteListed(w, r, h.app.Queries.ListDeliveryLogs, query.ListDeliveryLogs{
		AccountID: auth.RequestPrincipal(r).AccountID, SubscriptionID: id, Status: status, EventType: eventType,
		Offset: page.Offset(), Limit: page.PerPage}, page, h.baseURL)
}

func (h HTTPServer) log(w http.ResponseWriter, r *http.Request) {
	id, ok := subscriptionID(w, r)
	if !ok {
		return
	}
	logID := mux.Vars(r)["log_id"]
	if !ids.HasPrefix(logID, ids.WebhookLog) {
		httpapi.WriteError(w, r, fault.NotFound("Webhook subscription log"))
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetDeliveryLog, query.GetDeliveryLog{AccountID: auth.RequestPrincipal(r).AccountID, SubscriptionID: id, ID: logID}, http.StatusOK, "")
}

// subscriptionID reads the path id; one that cannot be an id of this kind is a 404.
func subscriptionID(w http.ResponseWriter, r *http.Request) (string, bool) {
	return httpapi.PathID(w, r, ids.WebhookSub, "Webhook subscription")
}
