package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"shipd/platform/fault"
	"shipd/platform/ids"
)

// PathID reads the {id} of the route. An id that cannot be one of the
// prefix's answers 404 at once (it names nothing), and ok is false.
func PathID(w http.ResponseWriter, r *http.Request, prefix, what string) (id string, ok bool) {
	id = mux.Vars(r)["id"]
	if !ids.HasPrefix(id, prefix) {
		WriteError(w, r, fault.NotFound(what))
		return "", false
	}
	return id, true
}
