// Package ports is the shipments module's driving side: its HTTP routes and
// the booking worker.
package ports

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"shipd/modules/shipments/app"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/contract"
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
	app       app.Application
	shipments httpapi.Resource[query.GetShipment, contract.Shipment]
}

// NewHTTPServer serves the application under cfg's public base URL (in
// Location headers and list links); clk dates the ids of new shipments.
func NewHTTPServer(application app.Application, cfg config.Config, clk clock.Clock) HTTPServer {
	return HTTPServer{app: application, shipments: httpapi.Resource[query.GetShipment, contract.Shipment]{
		Path: "/v1/shipments", Prefix: ids.Shipment, Name: "Shipment", BaseURL: cfg.PublicBaseURL, Clock: clk,
		Get:   application.Queries.GetShipment,
		Query: func(accountID, id string) query.GetShipment { return query.GetShipment{AccountID: accountID, ID: id} },
	}}
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
	r.Handle("/shipments/{id}/label/file", auth.Require(auth.ShipmentsRead, h.labelFile)).Methods(http.MethodGet)
	r.Handle("/shipments/{id}/label/retry", auth.Require(auth.ShipmentsWrite, h.retryLabel)).Methods(http.MethodPost)
}

func (h HTTPServer) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	id, ok := h.shipments.ReadNew(w, r, &req)
	if !ok {
		return
	}
	d := req.request()
	if len(d.shape) > 0 {
		httpapi.WriteError(w, r, httpapi.Refusal(d.shape, d.answer(d.request.Check(h.shipments.Clock.Now())), d.unread...))
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.CreateShipment.Handle(r.Context(), command.CreateShipment{AccountID: accountID, ShipmentID: id, Shipment: d.request})
	h.shipments.WriteCreated(w, r, d.answer(err), accountID, id, "Shipment created successfully")
}

func (h HTTPServer) list(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteFiltered(w, r, h.app.Queries.ListShipments, h.shipments.BaseURL, func(params url.Values, page httpapi.Page, errs fault.FieldErrors) query.ListShipments {
		status := params.Get("status")
		if status != "" && !domain.ValidStatus(status) {
			errs.Add("status", "must be one of: pending, created, shipped, delivered, cancelled, returned")
		}
		search := httpapi.TextParam(params, "search", errs)
		if utf8.RuneCountInString(search) > 255 {
			errs.Add("search", "must be at most 255 characters")
		}
		channelID := httpapi.TextParam(params, "shipping_channel_id", errs)
		return query.ListShipments{
			AccountID: auth.RequestPrincipal(r).AccountID, Status: status, ChannelID: channelID, Search: search,
			Offset: page.Offset(), Limit: page.PerPage,
		}
	})
}

func (h HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.shipments.ID(w, r); ok {
		h.shipments.WriteOne(w, r, auth.RequestPrincipal(r).AccountID, id)
	}
}

func (h HTTPServer) update(w http.ResponseWriter, r *http.Request) {
	var req updateRequest
	id, ok := h.shipments.ReadEdit(w, r, &req)
	if !ok {
		return
	}
	shape := fault.FieldErrors{}
	metadata := httpapi.OptionalObject(req.Metadata, "metadata", shape)
	if len(shape) > 0 {
		httpapi.WriteError(w, r, httpapi.Refusal(shape, domain.CheckEdit(req.ReferenceNumber, metadata)))
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.UpdateShipment.Handle(r.Context(), command.UpdateShipment{
		AccountID: accountID, ID: id, ReferenceNumber: req.ReferenceNumber, Metadata: metadata, EnableTracking: req.EnableTracking})
	h.shipments.WriteChanged(w, r, err, accountID, id, "Shipment updated successfully")
}

func (h HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	if id, ok := h.shipments.ID(w, r); ok {
		httpapi.WriteDeleted(w, r, h.app.Commands.DeleteShipment.Handle(r.Context(), command.DeleteShipment{AccountID: auth.RequestPrincipal(r).AccountID, ID: id}))
	}
}

func (h HTTPServer) cancel(w http.ResponseWriter, r *http.Request) {
	id, ok := h.shipments.ReadAction(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.CancelShipment.Handle(r.Context(), command.CancelShipment{AccountID: accountID, ID: id})
	h.shipments.WriteChanged(w, r, err, accountID, id, "Shipment cancelled successfully")
}

// retryLabel answers POST /v1/shipments/{id}/label/retry: 202, the
// shipment as it stands, its label due again (ADR 0041).
func (h HTTPServer) retryLabel(w http.ResponseWriter, r *http.Request) {
	id, ok := h.shipments.ReadAction(w, r)
	if !ok {
		return
	}
	accountID := auth.RequestPrincipal(r).AccountID
	err := h.app.Commands.RetryLabel.Handle(r.Context(), command.RetryLabel{AccountID: accountID, ID: id})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteQueried(w, r, h.shipments.Get, h.shipments.Query(accountID, id), http.StatusAccepted, "The label is being fetched again")
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
	id, ok := h.shipments.ID(w, r)
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
		writeLabelFile(w, id, l)
		return
	}
	httpapi.WriteData(w, http.StatusOK, labelBody{
		ShipmentID: id, ReferenceNumber: res.Shipment.ReferenceNumber, ProviderShipmentID: res.Shipment.ProviderShipmentID,
		Label: labelFile{Content: base64.StdEncoding.EncodeToString(l.Data), Format: l.Format, MIMEType: l.MIMEType, Size: len(l.Data)},
	}, "Label retrieved successfully")
}

// labelFile answers GET /v1/shipments/{id}/label/file: the raw label, as
// ?download=1 of the label answers it, under an operation of its own so a
// generated client types the JSON answer and the file apart (ADR 0039).
func (h HTTPServer) labelFile(w http.ResponseWriter, r *http.Request) {
	id, ok := h.shipments.ID(w, r)
	if !ok {
		return
	}
	res, err := h.app.Queries.GetLabel.Handle(r.Context(), query.GetLabel{AccountID: auth.RequestPrincipal(r).AccountID, ID: id})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	writeLabelFile(w, id, res.Label)
}

// writeLabelFile answers the label file with its content type and a file
// name.
func writeLabelFile(w http.ResponseWriter, id string, l domain.Label) {
	w.Header().Set("Content-Type", l.MIMEType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+id+"."+l.Format+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(l.Data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(l.Data)
}
