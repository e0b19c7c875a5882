// Package ports is the webhooks module's driving side: its HTTP routes, its
// handlers of the other modules' events and its workers.
package ports

import (
	"net/http"
	"net/url"
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
	app           app.Application
	subscriptions httpapi.Resource[query.GetSubscription, contract.Subscription]
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links); clk dates the ids of new subscriptions.
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, subscriptions: httpapi.Resource[query.GetSubscription, contract.Subscription]{
		Path: "/v1/webhook-subscriptions", Prefix: ids.WebhookSub, Name: "Webhook subscription", BaseURL: cfg.PublicBaseURL, Clock: clk,
		Get: application.Queries.GetSubscription,
		Query: func(accountID, id string) query.GetSubscription {
			return query.GetSubscription{AccountID: accountID, ID: id}
		},
	}}
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
	req, c, err := decodeChange(r)
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
	accountID, id := auth.RequestPrincipal(r).AccountID, h.subscriptions.NewID()
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
	w.Header().Set("Location", h.subscriptions.Location(r, id))
	httpapi.WriteJSON(w, http.StatusCreated, body)
}

// decodeChange reads a POST, PUT or PATCH body into the domain's change:
// create and update take the same body, and differ by what they require.
func decodeChange(r *http.Request) (req subscriptionRequest, c domain.Change, err error) {
	if err = httpapi.Decode(r, &req); err != nil {
		return req, c, err
	}
	c, err = req.read(r.Method)
	return req, c, err
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteFiltered(w, r, h.app.Queries.ListSubscriptions, h.subscriptions.BaseURL, func(_ url.Values, page httpapi.Page, _ fault.FieldErrors) query.ListSubscriptions {
		return query.ListSubscriptions{AccountID: auth.RequestPrincipal(r).AccountID, Offset: page.Offset(), Limit: page.PerPage}
	})
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.subscriptions.ID(w, r); ok {
		h.subscriptions.WriteOne(w, r, auth.RequestPrincipal(r).AccountID, id)
	}
}

// update is PUT (name required, as the spec says) and PATCH (nothing
// required); absent fields, and an empty secret, keep their values.
func (h HTTPServer) update(w http.ResponseWriter, r *http.Request) {
	id, ok := h.subscriptions.ID(w, r)
	if !ok {
		return
	}
	_, c, err := decodeChange(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err = h.app.Commands.UpdateSubscription.Handle(r.Context(), command.UpdateSubscription{AccountID: accountID, ID: id, Change: c})
	h.subscriptions.WriteChanged(w, r, err, accountID, id, "Webhook subscription updated successfully")
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.subscriptions.ID(w, r); ok {
		httpapi.WriteDeleted(w, r, h.app.Commands.DeleteSubscription.Handle(r.Context(), command.DeleteSubscription{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}))
	}
}

func (h HTTPServer) logs(w http.ResponseWriter, r *http.Request) {
	id, ok := h.subscriptions.ID(w, r)
	if !ok {
		return
	}
	httpapi.WriteFiltered(w, r, h.app.Queries.ListDeliveryLogs, h.subscriptions.BaseURL, func(params url.Values, page httpapi.Page, errs fault.FieldErrors) query.ListDeliveryLogs {
		status, eventType := params.Get("status"), params.Get("event_type")
		if status != "" && status != domain.LogSuccess && status != domain.LogFailed {
			errs.Add("status", "must be one of: success, failed")
		}
		if eventType != "" && !slices.Contains(app.EventTypes, eventType) {
			errs.Add("event_type", "must be one of: "+strings.Join(app.EventTypes, ", "))
		}
		return query.ListDeliveryLogs{
			AccountID: auth.RequestPrincipal(r).AccountID, SubscriptionID: id, Status: status, EventType: eventType,
			Offset: page.Offset(), Limit: page.PerPage,
		}
	})
}

func (h HTTPServer) log(w http.ResponseWriter, r *http.Request) {
	id, ok := h.subscriptions.ID(w, r)
	if !ok {
		return
	}
	logID := mux.Vars(r)["log_id"]
	if !ids.HasPrefix(logID, ids.WebhookLog) {
		httpapi.WriteError(w, r, fault.NotFound("Webhook subscription log"))
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetDeliveryLog, query.GetDeliveryLog{AccountID: auth.RequestPrincipal(r).AccountID, SubscriptionID: id, ID: logID}, http.StatusOK, "Webhook log retrieved successfully")
}
