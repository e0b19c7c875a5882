// Package ports is the tracking module's driving side: its HTTP routes, the
// checker worker and its handlers of other modules' events.
package ports

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"shipd/modules/tracking/app"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/app/query"
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
	baseURL string
	clock   clock.Clock // dates the ids of new tracking parcels
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links).
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, baseURL: cfg.PublicBaseURL, clock: clk}
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
	if err := httpapi.Decode(r, &req); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	parcel, err := req.request()
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	accountID, id := auth.RequestPrincipal(r).AccountID, ids.NewAt(ids.TrackingParcel, h.clock.Now())
	err = h.app.Commands.CreateTrackingParcel.Handle(r.Context(), command.CreateTrackingParcel{AccountID: accountID, ParcelID: id, Parcel: parcel})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Location", httpapi.BaseURL(r, h.baseURL)+"/v1/tracking-parcels/"+id)
	httpapi.WriteQueried(w, r, h.app.Queries.GetTrackingParcel, query.GetTrackingParcel{AccountID: accountID, ID: id}, http.StatusCreated, "Tracking parcel created successfully")
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	errs := fault.FieldErrors{}
	page := httpapi.PageParams(q, errs)
	status := q.Get("status")
	if status != "" && !carrier.TrackingStatus(status).Valid() {
		names := make([]string, len(carrier.TrackingStatuses))
		for i, s := range carrier.TrackingStatuses {
			names[i] = string(s)
		}
		errs.Add("status", "must be one of: "+strings.Join(names, ", "))
	}
	search := domain.NormalizeTrackingNumber(httpapi.TextParam(q, "search", errs))
	if len(search) > domain.MaxTrackingNumberLength {
		errs.Add("search", "must be at most "+strconv.Itoa(domain.MaxTrackingNumberLength)+" characters")
	}
	channelID := httpapi.TextParam(q, "shipping_channel_id", errs)
	if err := errs.Err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteListed(w, r, h.app.Queries.ListTrackingParcels, query.ListTrackingParcels{
		AccountID: auth.RequestPrincipal(r).AccountID, Status: status, ChannelID: channelID, Search: search,
		Offset: page.Offset(), Limit: page.PerPage,
	}, page, h.baseURL)
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	id, ok := parcelID(w, r)
	if !ok {
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetTrackingParcel, query.GetTrackingParcel{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}, http.StatusOK, "")
}

func (h HTTPServer) update(w http.ResponseWriter, r *http.Request) {
	id, ok := parcelID(w, r)
	if !ok {
		return
	}
	var req updateRequest
	if err := httpapi.Decode(r, &req); err != nil {
		httpapi.WriteError(w, r, err)
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
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetTrackingParcel, query.GetTrackingParcel{AccountID: accountID, ID: id}, http.StatusOK, "Tracking parcel updated successfully")
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	id, ok := parcelID(w, r)
	if !ok {
		return
	}
	if err := h.app.Commands.DeleteTrackingParcel.Handle(r.Context(), command.DeleteTrackingParcel{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// refresh checks the parcel now. A carrier that gives no answer is recorded
// as a failed check (last_check_error) and answered 503 with its reason.
func (h HTTPServer) refresh(w http.ResponseWriter, r *http.Request) {
	id, ok := parcelID(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	if err := h.app.Commands.CheckTrackingParcel.Handle(r.Context(), command.CheckTrackingParcel{AccountID: accountID, ID: id}); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetTrackingParcel, query.GetTrackingParcel{AccountID: accountID, ID: id}, http.StatusOK, "Tracking parcel refreshed successfully")
}

// parcelID reads the path id; one that cannot be an id of this kind is a 404.
func parcelID(w http.ResponseWriter, r *http.Request) (string, bool) {
	return httpapi.PathID(w, r, ids.TrackingParcel, "Tracking parcel")
}
