package ports

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"shipd/modules/channels/app"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/platform/httpapi"
	"shipd/platform/secrets"
)

// InternalHTTPServer answers other shipd processes that run shipments or
// tracking without this module (ADR 0033). The server mounts it under
// /internal, behind INTERNAL_TOKEN; it is never routed to clients.
type InternalHTTPServer struct {
	app app.Application
	box *secrets.Box
}

// NewInternalHTTPServer answers with settings sealed by box, the same
// SECRET_KEY box that keeps them at rest.
func NewInternalHTTPServer(application app.Application, box *secrets.Box) InternalHTTPServer {
	return InternalHTTPServer{app: application, box: box}
}

// Register adds the routes to the /internal router.
func (h InternalHTTPServer) Register(r *mux.Router) {
	r.HandleFunc(contract.InternalAccessRoute, h.access).Methods(http.MethodGet)
}

// access is contract.Channels.ChannelForUse for another process: the
// channel of the account in ?account_id=, its settings sealed.
func (h InternalHTTPServer) access(w http.ResponseWriter, r *http.Request) {
	ch, err := h.app.Queries.ChannelForUse.Handle(r.Context(), query.ChannelForUse{AccountID: r.URL.Query().Get("account_id"), ChannelID: mux.Vars(r)["id"]})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	settings, err := json.Marshal(ch.Settings)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	sealed, err := h.box.Seal(settings)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, contract.SealedChannelAccess{ID: ch.ID, AccountID: ch.AccountID, Name: ch.Name,
		Provider: ch.Provider, Status: ch.Status, SealedSettings: sealed})
}
