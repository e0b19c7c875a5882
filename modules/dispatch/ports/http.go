// Package ports is the dispatch module's driving side: its HTTP routes, the
// worker that settles pickups left being ordered, and its handlers of the
// shipments stream.
package ports

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"shipd/modules/dispatch/app"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/app/query"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/pickup"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/ids"
)

// HTTPServer serves /v1/pickups, /v1/manifests and a channel's pickup
// availability. Both take the shipments permissions: a key that ships a
// merchant's parcels orders their courier and hands them over.
type HTTPServer struct {
	app       app.Application
	baseURL   string
	pickups   httpapi.Resource[query.GetPickup, contract.Pickup]
	manifests httpapi.Resource[query.GetManifest, contract.Manifest]
}

// NewHTTPServer serves the application under cfg's public base URL; clk
// dates the ids of new pickups and manifests.
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, baseURL: cfg.PublicBaseURL,
		pickups: httpapi.Resource[query.GetPickup, contract.Pickup]{
			Path: "/v1/pickups", Prefix: ids.Pickup, Name: "Pickup", BaseURL: cfg.PublicBaseURL, Clock: clk,
			Get:   application.Queries.GetPickup,
			Query: func(accountID, id string) query.GetPickup { return query.GetPickup{AccountID: accountID, ID: id} },
		},
		manifests: httpapi.Resource[query.GetManifest, contract.Manifest]{
			Path: "/v1/manifests", Prefix: ids.Manifest, Name: "Manifest", BaseURL: cfg.PublicBaseURL, Clock: clk,
			Get:   application.Queries.GetManifest,
			Query: func(accountID, id string) query.GetManifest { return query.GetManifest{AccountID: accountID, ID: id} },
		},
	}
}

// Register adds the routes to the authenticated /v1 router.
func (h HTTPServer) Register(r *mux.Router) {
	r.Handle("/pickups", auth.Require(auth.ShipmentsWrite, h.orderPickup)).Methods(http.MethodPost)
	r.Handle("/pickups", auth.Require(auth.ShipmentsRead, h.listPickups)).Methods(http.MethodGet)
	r.Handle("/pickups/{id}", auth.Require(auth.ShipmentsRead, h.getPickup)).Methods(http.MethodGet)
	r.Handle("/pickups/{id}", auth.Require(auth.ShipmentsWrite, h.cancelPickup)).Methods(http.MethodDelete)
	r.Handle("/shipping-channels/{id}/pickup-availability", auth.Require(auth.ShipmentsRead, h.availability)).Methods(http.MethodGet)
	r.Handle("/manifests", auth.Require(auth.ShipmentsWrite, h.createManifest)).Methods(http.MethodPost)
	r.Handle("/manifests", auth.Require(auth.ShipmentsRead, h.listManifests)).Methods(http.MethodGet)
	r.Handle("/manifests/{id}", auth.Require(auth.ShipmentsRead, h.getManifest)).Methods(http.MethodGet)
	r.Handle("/manifests/{id}/document", auth.Require(auth.ShipmentsRead, h.manifestDocument)).Methods(http.MethodGet)
}

func (h HTTPServer) orderPickup(w http.ResponseWriter, r *http.Request) {
	var req pickupRequest
	id, ok := h.pickups.ReadNew(w, r, &req)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.OrderPickup.Handle(r.Context(), command.OrderPickup{AccountID: accountID, PickupID: id, Request: req.domain()})
	h.pickups.WriteCreated(w, r, err, accountID, id, "Pickup ordered successfully")
}

func (h HTTPServer) getPickup(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.pickups.ID(w, r); ok {
		h.pickups.WriteOne(w, r, auth.RequestPrincipal(r).AccountID, id)
	}
}

// cancelPickup answers the cancelled pickup: it stays, cancelled.
func (h HTTPServer) cancelPickup(w http.ResponseWriter, r *http.Request) {
	id, ok := h.pickups.ID(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.CancelPickup.Handle(r.Context(), command.CancelPickup{AccountID: accountID, ID: id})
	h.pickups.WriteChanged(w, r, err, accountID, id, "Pickup cancelled successfully")
}

func (h HTTPServer) listPickups(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteFiltered(w, r, h.app.Queries.ListPickups, h.baseURL, func(params url.Values, page httpapi.Page, errs fault.FieldErrors) query.ListPickups {
		status := httpapi.TextParam(params, "status", errs)
		if status != "" && !pickup.ValidStatus(status) {
			errs.Add("status", "must be one of: ordering, scheduled, unconfirmed, cancelled")
		}
		return query.ListPickups{AccountID: auth.RequestPrincipal(r).AccountID, ChannelID: httpapi.TextParam(params, "shipping_channel_id", errs),
			Date: dateParam(params, errs), Status: status, Offset: page.Offset(), Limit: page.PerPage}
	})
}

func (h HTTPServer) availability(w http.ResponseWriter, r *http.Request) {
	channelID, ok := httpapi.PathID(w, r, ids.ShippingChannel, "Shipping channel")
	if !ok {
		return
	}
	q := query.PickupAvailability{AccountID: auth.RequestPrincipal(r).AccountID, ChannelID: channelID, Date: r.URL.Query().Get("date")}
	// Comma-separated: the shipments a carrier that answers per shipment
	// (Allegro) is asked about.
	if v := r.URL.Query().Get("shipment_ids"); v != "" {
		q.ShipmentIDs = strings.Split(v, ",")
	}
	httpapi.WriteQueried(w, r, h.app.Queries.PickupAvailability, q, http.StatusOK, "Pickup availability retrieved successfully")
}

func (h HTTPServer) createManifest(w http.ResponseWriter, r *http.Request) {
	var req manifestRequest
	id, ok := h.manifests.ReadNew(w, r, &req)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.CreateManifest.Handle(r.Context(), command.CreateManifest{AccountID: accountID, ManifestID: id, Request: req.domain()})
	h.manifests.WriteCreated(w, r, err, accountID, id, "Manifest created successfully")
}

func (h HTTPServer) getManifest(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.manifests.ID(w, r); ok {
		h.manifests.WriteOne(w, r, auth.RequestPrincipal(r).AccountID, id)
	}
}

func (h HTTPServer) listManifests(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteFiltered(w, r, h.app.Queries.ListManifests, h.baseURL, func(params url.Values, page httpapi.Page, errs fault.FieldErrors) query.ListManifests {
		return query.ListManifests{AccountID: auth.RequestPrincipal(r).AccountID, ChannelID: httpapi.TextParam(params, "shipping_channel_id", errs),
			Date: dateParam(params, errs), Offset: page.Offset(), Limit: page.PerPage}
	})
}

// manifestDocument answers the manifest's PDF as a file.
func (h HTTPServer) manifestDocument(w http.ResponseWriter, r *http.Request) {
	id, ok := h.manifests.ID(w, r)
	if !ok {
		return
	}
	doc, err := h.app.Queries.ManifestDocument.Handle(r.Context(), query.ManifestDocument{AccountID: auth.RequestPrincipal(r).AccountID, ID: id})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `attachment; filename="`+doc.FileName+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(doc.Data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc.Data)
}

// dateParam is the date filter: a calendar date, or "" for any.
func dateParam(params url.Values, errs fault.FieldErrors) string {
	d := httpapi.TextParam(params, "date", errs)
	if _, ok := domain.ParseDate(d); d != "" && !ok {
		errs.Add("date", "must be a date YYYY-MM-DD")
	}
	return d
}
