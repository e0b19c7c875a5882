// Package ports is the tracking module's driving side: its HTTP routes, the
// checker worker and its handlers of other modules' events.
package ports

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/auth"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/ids"
)

// HTTPServer serves /v1/tracking-parcels.
type HTTPServer struct {
	app     app.Application
	parcels httpapi.Resource[query.GetTrackingParcel, contract.Detail]
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links); clk dates the ids of new tracking
// parcels.
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, parcels: httpapi.Resource[query.GetTrackingParcel, contract.Detail]{
		Path: "/v1/tracking-parcels", Prefix: ids.TrackingParcel, Name: "Tracking parcel", BaseURL: cfg.PublicBaseURL, Clock: clk,
		Get: application.Queries.GetTrackingParcel,
		Query: func(accountID, id string) query.GetTrackingParcel {
			return query.GetTrackingParcel{AccountID: accountID, ID: id}
		},
	}}
}

// Register adds the routes to the authenticated /v1 router.
func (h HTTPServer) Register(r *mux.Router) {
	r.Handle("/tracking-parcels", auth.Require(auth.TrackingWrite, h.create)).Methods(http.MethodPost)
	r.Handle("/tracking-parcels", auth.Require(auth.TrackingRead, h.list)).Methods(http.MethodGet)
	r.Handle("/tracking-parcels/{id}", auth.Require(auth.TrackingRead, h.get)).Methods(http.MethodGet)
	r.Handle("/tracking-parcels/{id}", auth.Require(auth.TrackingWrite, h.update)).Methods(http.MethodPut, http.MethodPatch)
	r.Handle("/tracking-parcels/{id}", auth.Require(auth.TrackingWrite, h.delete)).Methods(http.MethodDelete)
	r.Handle("/tracking-parcels/{id}/refresh", auth.Require(auth.TrackingWrite, h.refresh)).Methods(http.MethodPost)
}

func (h HTTPServer) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	id, ok := h.parcels.ReadNew(w, r, &req)
	if !ok {
		return
	}
	parcel, err := req.request()
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err = h.app.Commands.CreateTrackingParcel.Handle(r.Context(), command.CreateTrackingParcel{AccountID: accountID, ParcelID: id, Parcel: parcel})
	h.parcels.WriteCreated(w, r, err, accountID, id, "Tracking parcel created successfully")
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteFiltered(w, r, h.app.Queries.ListTrackingParcels, h.parcels.BaseURL, func(params url.Values, page httpapi.Page, errs fault.FieldErrors) query.ListTrackingParcels {
		status := params.Get("status")
		if status != "" && !carrier.TrackingStatus(status).Valid() {
			names := make([]string, len(carrier.TrackingStatuses))
			for i, s := range carrier.TrackingStatuses {
				names[i] = string(s)
			}
			errs.Add("status", "must be one of: "+strings.Join(names, ", "))
		}
		search := domain.NormalizeTrackingNumber(httpapi.TextParam(params, "search", errs))
		if len(search) > domain.MaxTrackingNumberLength {
			errs.Add("search", "must be at most "+strconv.Itoa(domain.MaxTrackingNumberLength)+" characters")
		}
		channelID := httpapi.TextParam(params, "shipping_channel_id", errs)
		return query.ListTrackingParcels{
			AccountID: auth.RequestPrincipal(r).AccountID, Status: status, ChannelID: channelID, Search: search,
			Offset: page.Offset(), Limit: page.PerPage,
		}
	})
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.parcels.ID(w, r); ok {
		h.parcels.WriteOne(w, r, auth.RequestPrincipal(r).AccountID, id)
	}
}

func (h HTTPServer) update(w http.ResponseWriter, r *http.Request) {
	var req updateRequest
	id, ok := h.parcels.ReadEdit(w, r, &req)
	if !ok {
		return
	}
	external, err := req.externalData()
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err = h.app.Commands.UpdateTrackingParcel.Handle(r.Context(), command.UpdateTrackingParcel{
		AccountID: accountID, ID: id, RecipientName: req.RecipientName,
		RecipientEmail: req.RecipientEmail, RecipientPhone: req.RecipientPhone, ExternalData: external})
	h.parcels.WriteChanged(w, r, err, accountID, id, "Tracking parcel updated successfully")
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.parcels.ID(w, r); ok {
		httpapi.WriteDeleted(w, r, h.app.Commands.DeleteTrackingParcel.Handle(r.Context(), command.DeleteTrackingParcel{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}))
	}
}

// refresh checks the parcel now. A carrier that gives no answer is recorded
// as a failed check (last_check_error) and answered 503 with its reason.
func (h HTTPServer) refresh(w http.ResponseWriter, r *http.Request) {
	id, ok := h.parcels.ReadAction(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.CheckTrackingParcel.Handle(r.Context(), command.CheckTrackingParcel{AccountID: accountID, ID: id})
	h.parcels.WriteChanged(w, r, err, accountID, id, "Tracking parcel refreshed successfully")
}
