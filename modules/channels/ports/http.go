// Package ports is the channel module's driving side: its HTTP routes.
package ports

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"

	"github.com/gorilla/mux"

	"shipd/modules/channels/app"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/auth"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/ids"
)

// HTTPServer serves /v1/shipping-channels and /v1/providers.
type HTTPServer struct {
	app      app.Application
	channels httpapi.Resource[query.GetChannel, contract.ShippingChannel]
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links); clk dates the ids of new channels.
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, channels: httpapi.Resource[query.GetChannel, contract.ShippingChannel]{
		Path: "/v1/shipping-channels", Prefix: ids.ShippingChannel, Name: "Shipping channel", BaseURL: cfg.PublicBaseURL, Clock: clk,
		Get:   application.Queries.GetChannel,
		Query: func(accountID, id string) query.GetChannel { return query.GetChannel{AccountID: accountID, ID: id} },
	}}
}

// Register adds the routes to the authenticated /v1 router.
func (h HTTPServer) Register(r *mux.Router) {
	r.Handle("/shipping-channels", auth.Require(auth.ChannelsWrite, h.create)).Methods(http.MethodPost)
	r.Handle("/shipping-channels", auth.Require(auth.ChannelsRead, h.list)).Methods(http.MethodGet)
	r.Handle("/shipping-channels/{id}", auth.Require(auth.ChannelsRead, h.get)).Methods(http.MethodGet)
	r.Handle("/shipping-channels/{id}", auth.Require(auth.ChannelsWrite, h.replace)).Methods(http.MethodPut)
	r.Handle("/shipping-channels/{id}", auth.Require(auth.ChannelsWrite, h.patch)).Methods(http.MethodPatch)
	r.Handle("/shipping-channels/{id}", auth.Require(auth.ChannelsWrite, h.delete)).Methods(http.MethodDelete)
	r.Handle("/shipping-channels/{id}/validate", auth.Require(auth.ChannelsWrite, h.validate)).Methods(http.MethodPost)
	r.Handle("/providers", auth.Require(auth.ChannelsRead, h.providers)).Methods(http.MethodGet)
}

// createRequest is the body of POST /v1/shipping-channels; the domain
// checks it (domain.NewChannel).
type createRequest struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Provider    string         `json:"provider"`
	Settings    map[string]any `json:"settings"`
}

func (h HTTPServer) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	id, ok := h.channels.ReadNew(w, r, &req)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.CreateChannel.Handle(r.Context(), command.CreateChannel{
		AccountID: accountID, ChannelID: id, Name: req.Name, Description: req.Description,
		Provider: req.Provider, Settings: req.Settings,
	})
	h.channels.WriteCreated(w, r, err, accountID, id, "Shipping channel created successfully")
}

// updateRequest is the body of PUT and PATCH: absent fields stay as they
// are; the domain checks it (domain.Channel.Edit).
type updateRequest struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Settings    json.RawMessage `json:"settings"`
	Status      *string         `json:"status"`
}

func (h HTTPServer) replace(w http.ResponseWriter, r *http.Request) { h.update(w, r, false) }
func (h HTTPServer) patch(w http.ResponseWriter, r *http.Request)   { h.update(w, r, true) }

func (h HTTPServer) update(w http.ResponseWriter, r *http.Request, merge bool) {
	var req updateRequest
	id, ok := h.channels.ReadEdit(w, r, &req)
	if !ok {
		return
	}
	settings, err := decodeSettings(req.Settings)
	if err != nil {
		// With what the domain says of the description, as before it
		// looks the channel up (CheckDescription).
		var rules error
		if req.Description != nil {
			rules = domain.CheckDescription(*req.Description)
		}
		httpapi.WriteError(w, r, httpapi.Refusal(fault.FieldErrors{"settings": {"must be an object"}}, rules))
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err = h.app.Commands.UpdateChannel.Handle(r.Context(), command.UpdateChannel{
		AccountID: accountID, ID: id, Name: req.Name, Description: req.Description,
		Settings: settings, MergeSettings: merge, Status: req.Status,
	})
	h.channels.WriteChanged(w, r, err, accountID, id, "Shipping channel updated successfully")
}

// decodeSettings tells "absent or null" (nil map, unchanged) from an object.
func decodeSettings(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fault.Field("settings", "must be an object")
	}
	return m, nil
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.channels.ID(w, r); ok {
		h.channels.WriteOne(w, r, auth.RequestPrincipal(r).AccountID, id)
	}
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteFiltered(w, r, h.app.Queries.ListChannels, h.channels.BaseURL, func(params url.Values, page httpapi.Page, errs fault.FieldErrors) query.ListChannels {
		status := params.Get("status")
		if status != "" && !domain.ValidStatus(status) {
			errs.Add("status", "must be one of: draft, active, error, inactive")
		}
		provider := params.Get("provider")
		if provider != "" && !h.knownProvider(r.Context(), provider) {
			errs.Add("provider", "must be one of the providers of GET /v1/providers")
		}
		return query.ListChannels{
			AccountID: auth.RequestPrincipal(r).AccountID, Provider: provider, Status: status,
			Offset: page.Offset(), Limit: page.PerPage,
		}
	})
}

func (h HTTPServer) knownProvider(ctx context.Context, code string) bool {
	providers, _ := h.app.Queries.ListProviders.Handle(ctx, query.ListProviders{}) // reads the registry in memory; never fails
	return slices.ContainsFunc(providers, func(p carrier.ProviderInfo) bool { return p.Code == code })
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	id, ok := h.channels.ID(w, r)
	if !ok {
		return
	}
	if err := h.app.Commands.DeleteChannel.Handle(r.Context(), command.DeleteChannel{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteMessage(w, http.StatusOK, "Shipping channel deleted successfully")
}

func (h HTTPServer) validate(w http.ResponseWriter, r *http.Request) {
	id, ok := h.channels.ReadAction(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.ValidateChannel.Handle(r.Context(), command.ValidateChannel{AccountID: accountID, ID: id})
	h.channels.WriteChanged(w, r, err, accountID, id, "Shipping channel validated successfully")
}

func (h HTTPServer) providers(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteQueried(w, r, h.app.Queries.ListProviders, query.ListProviders{}, http.StatusOK, "Providers retrieved successfully")
}
