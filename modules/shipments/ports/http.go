// Package ports is the shipments module's driving side: its HTTP routes and
// the booking worker.
package ports

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/domain"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/ids"
)

// HTTPServer serves /v1/shipments.
type HTTPServer struct {
	app     app.Application
	baseURL string
	clock   clock.Clock
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links); clk dates the ids of new shipments.
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, baseURL: cfg.PublicBaseURL, clock: clk}
}

// Register adds the routes to the authenticated /v1 router.
func (h HTTPServer) Register(r *mux.Router) {
	r.Handle("/shipments", auth.Require(auth.ShipmentsWrite, h.create)).Methods(http.MethodPost)
	r.Handle("/shipments", auth.Require(auth.ShipmentsRead, h.list)).Methods(http.MethodGet)
	r.Handle("/shipments/{id}", auth.Require(auth.ShipmentsRead, h.get)).Methods(http.MethodGet)
	r.Handle("/shipments/{id}", auth.Require(auth.ShipmentsWrite, h.update)).Methods(http.MethodPut, http.MethodPatch)
	r.Handle("/shipments/{id}", auth.Require(auth.ShipmentsWrite, h.delete)).Methods(http.MethodDelete)
	r.Handle("/shipments/{id}/cancel", auth.Require(auth.ShipmentsWrite, h.cancel)).Methods(http.MethodPost)
	r.Handle("/shipments/{id}/label", auth.Require(auth.ShipmentsRead, h.label)).Methods(http.MethodGet)
}

func (h HTTPServer) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := httpapi.Decode(r, &req); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	d := req.request()
	if len(d.shape) > 0 {
		httpapi.WriteError(w, r, httpapi.Refusal(d.shape, d.answer(d.request.Check(h.clock.Now())), d.unread...))
		return
	}
	accountID, id := auth.RequestPrincipal(r).AccountID, ids.NewAt(ids.Shipment, h.clock.Now())
	err := h.app.Commands.CreateShipment.Handle(r.Context(), command.CreateShipment{AccountID: accountID, ShipmentID: id, Shipment: d.request})
	if err != nil {
		httpapi.WriteError(w, r, d.answer(err))
		return
	}
	w.Header().Set("Location", httpapi.BaseURL(r, h.baseURL)+"/v1/shipments/"+id)
	httpapi.WriteQueried(w, r, h.app.Queries.GetShipment, query.GetShipment{AccountID: accountID, ID: id}, http.StatusCreated, "Shipment created successfully")
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	errs := fault.FieldErrors{}
	page := httpapi.PageParams(q, errs)
	status := q.Get("status")
	if status != "" && !domain.ValidStatus(status) {
		errs.Add("status", "must be one of: pending, created, shipped, delivered, cancelled, returned")
	}
	search := httpapi.TextParam(q, "search", errs)
	if utf8.RuneCountInString(search) > 255 {
		errs.Add("search", "must be at most 255 characters")
	}
	channelID := httpapi.TextParam(q, "shipping_channel_id", errs)
	if err := errs.Err(); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteListed(w, r, h.app.Queries.ListShipments, query.ListShipments{
		AccountID: auth.RequestPrincipal(r).AccountID, Status: status, ChannelID: channelID, Search: search,
		Offset: page.Offset(), Limit: page.PerPage,
	}, page, h.baseURL)
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	id, ok := shipmentID(w, r)
	if !ok {
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetShipment, query.GetShipment{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}, http.StatusOK, "")
}

func (h HTTPServer) update(w http.ResponseWriter, r *http.Request) {
	id, ok := shipmentID(w, r)
	if !ok {
		return
	}
	var req updateRequest
	if err := httpapi.Decode(r, &req); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	shape := fault.FieldErrors{}
	metadata := httpapi.OptionalObject(req.Metadata, "metadata", shape)
	if len(shape) > 0 {
		httpapi.WriteError(w, r, httpapi.Refusal(shape, domain.CheckEdit(req.ReferenceNumber)))
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.UpdateShipment.Handle(r.Context(), command.UpdateShipment{
		AccountID: accountID, ID: id, ReferenceNumber: req.ReferenceNumber, Metadata: metadata, EnableTracking: req.EnableTracking})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetShipment, query.GetShipment{AccountID: accountID, ID: id}, http.StatusOK, "Shipment updated successfully")
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	id, ok := shipmentID(w, r)
	if !ok {
		return
	}
	if err := h.app.Commands.DeleteShipment.Handle(r.Context(), command.DeleteShipment{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h HTTPServer) cancel(w http.ResponseWriter, r *http.Request) {
	id, ok := shipmentID(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	if err := h.app.Commands.CancelShipment.Handle(r.Context(), command.CancelShipment{AccountID: accountID, ID: id}); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteQueried(w, r, h.app.Queries.GetShipment, query.GetShipment{AccountID: accountID, ID: id}, http.StatusOK, "Shipment cancelled successfully")
}

// labelBody is the JSON answer of GET /v1/shipments/{id}/label.
type labelBody struct {
	ShipmentID         string    `json:"shipment_id"`
	ReferenceNumber    string    `json:"reference_number"`
	ProviderShipmentID *string   `json:"provider_shipment_id"`
	Label              labelFile `json:"label"`
}

type labelFile struct {
	Content  string `json:"content"`
	Format   string `json:"format"`
	MIMEType string `json:"mime_type"`
	Size     int    `json:"size"`
}

func (h HTTPServer) label(w http.ResponseWriter, r *http.Request) {
	id, ok := shipmentID(w, r)
	if !ok {
		return
	}
	// The document says boolean; "download=yes" answered as JSON would
	// leave a client wondering why it got no file.
	download := false
	if v := r.URL.Query().Get("download"); v != "" {
		var err error
		if download, err = strconv.ParseBool(v); err != nil {
			httpapi.WriteErrorBody(w, r, http.StatusBadRequest, "invalid_request", "The download parameter must be true or false.",
				map[string][]string{"download": {"must be true or false (or 1 or 0)"}})
			return
		}
	}
	res, err := h.app.Queries.GetLabel.Handle(r.Context(), query.GetLabel{AccountID: auth.RequestPrincipal(r).AccountID, ID: id})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	l := res.Label
	if download {
		w.Header().Set("Content-Type", l.MIMEType)
		w.Header().Set("Content-Disposition", `attachment; filename="`+id+"."+l.Format+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(l.Data)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(l.Data)
		return
	}
	httpapi.WriteData(w, http.StatusOK, labelBody{
		ShipmentID: id, ReferenceNumber: res.Shipment.ReferenceNumber, ProviderShipmentID: res.Shipment.ProviderShipmentID,
		Label: labelFile{Content: base64.StdEncoding.EncodeToString(l.Data), Format: l.Format, MIMEType: l.MIMEType, Size: len(l.Data)},
	}, "Label retrieved successfully")
}

// shipmentID reads the path id; one that cannot be an id of this kind is a 404.
func shipmentID(w http.ResponseWriter, r *http.Request) (string, bool) {
	return httpapi.PathID(w, r, ids.Shipment, "Shipment")
}
