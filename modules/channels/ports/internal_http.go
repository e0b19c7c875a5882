package ports

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"shipd/modules/channels/app"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/platform/fault"
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
	r.HandleFunc(contract.InternalCredentialsRoute, h.renewCredential).Methods(http.MethodPost)
}

// renewCredential is contract.Channels.RenewCredential for another
// process: a contract.SealedCredentialRenewal for the channel of the
// account in ?account_id=, answered 204 whether the value was renewed or
// another kept (ADR 0042).
func (h InternalHTTPServer) renewCredential(w http.ResponseWriter, r *http.Request) {
	var body contract.SealedCredentialRenewal
	if err := httpapi.Decode(r, &body); err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	plain, err := h.box.Open(body.Sealed)
	if err != nil {
		httpapi.WriteError(w, r, fault.Field("sealed", "must be sealed with this deployment's SECRET_KEY"))
		return
	}
	var values contract.CredentialValues
	if err := json.Unmarshal(plain, &values); err != nil {
		httpapi.WriteError(w, r, fault.Field("sealed", "must hold the retired and renewed values"))
		return
	}
	err = h.app.Commands.RenewCredential.Handle(r.Context(), command.RenewCredential{AccountID: r.URL.Query().Get("account_id"),
		ChannelID: mux.Vars(r)["id"], Key: body.Key, Retired: values.Retired, Renewed: values.Renewed})
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
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
