package httpapi

import (
	"net/http"
	"net/url"

	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/usecase"
)

// Resource is one kind of resource a module serves under /v1, with what
// every module answers for its resources alike: the id in the path, the id
// of a new one, and a command's answer read back through the get query
// (a command answers only its error, ADR 0035). A module's handlers then say
// only what is theirs: the body they read and the command they run. Q is
// the module's get query of one resource, R what it finds.
type Resource[Q, R any] struct {
	Path    string      // the collection's path under the base URL: "/v1/shipments"
	Prefix  string      // the prefix of its ids (ids.Shipment)
	Name    string      // what a 404 calls it: "Shipment"
	BaseURL string      // the configured public base URL; "" for the request's own
	Clock   clock.Clock // dates the ids of new resources
	Get     usecase.QueryHandler[Q, R]
	Query   func(accountID, id string) Q // the get query of one resource
}

// NewID is the id of a resource about to be made: the port chooses it, so
// that it can read the new resource back.
func (res Resource[Q, R]) NewID() string { return ids.NewAt(res.Prefix, res.Clock.Now()) }

// ID reads the {id} of the route. One that cannot be an id of this kind
// names nothing: it is answered 404 at once, and ok is false.
func (res Resource[Q, R]) ID(w http.ResponseWriter, r *http.Request) (id string, ok bool) {
	return PathID(w, r, res.Prefix, res.Name)
}

// Location is the address of the resource id.
func (res Resource[Q, R]) Location(r *http.Request, id string) string {
	return BaseURL(r, res.BaseURL) + res.Path + "/" + id
}

// ReadNew reads the body of a POST that makes a resource into dst, and
// chooses the new resource's id. A body Decode refuses is answered at once,
// and ok is false.
func (res Resource[Q, R]) ReadNew(w http.ResponseWriter, r *http.Request, dst any) (id string, ok bool) {
	if !readBody(w, r, dst) {
		return "", false
	}
	return res.NewID(), true
}

// ReadEdit reads the id in the path of a PUT or PATCH and then its body
// into dst: an id that names nothing is a 404 whatever the body. What ID
// or Decode refuses is answered at once, and ok is false.
func (res Resource[Q, R]) ReadEdit(w http.ResponseWriter, r *http.Request, dst any) (id string, ok bool) {
	if id, ok = res.ID(w, r); !ok || !readBody(w, r, dst) {
		return "", false
	}
	return id, true
}

// ReadAction reads the id in the path of a POST that acts on the resource
// and takes no body (a cancel, a validation, a refresh), and its body: none,
// or an object without members (DecodeNone). What ID or DecodeNone refuses
// is answered at once, and ok is false.
func (res Resource[Q, R]) ReadAction(w http.ResponseWriter, r *http.Request) (id string, ok bool) {
	if id, ok = res.ID(w, r); !ok {
		return "", false
	}
	if err := DecodeNone(r); err != nil {
		WriteError(w, r, err)
		return "", false
	}
	return id, true
}

func readBody(w http.ResponseWriter, r *http.Request, dst any) bool {
	if err := Decode(r, dst); err != nil {
		WriteError(w, r, err)
		return false
	}
	return true
}

// WriteOne answers a GET of the resource id: "Shipment retrieved
// successfully".
func (res Resource[Q, R]) WriteOne(w http.ResponseWriter, r *http.Request, accountID, id string) {
	WriteQueried(w, r, res.Get, res.Query(accountID, id), http.StatusOK, res.Name+" retrieved successfully")
}

// WriteCreated answers the command that made the resource id: its error,
// or 201 with the resource as the get query reads it and its Location.
func (res Resource[Q, R]) WriteCreated(w http.ResponseWriter, r *http.Request, err error, accountID, id, message string) {
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.Header().Set("Location", res.Location(r, id))
	WriteQueried(w, r, res.Get, res.Query(accountID, id), http.StatusCreated, message)
}

// WriteChanged answers a command that changed the resource id: its error,
// or the resource as the get query reads it now.
func (res Resource[Q, R]) WriteChanged(w http.ResponseWriter, r *http.Request, err error, accountID, id, message string) {
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteQueried(w, r, res.Get, res.Query(accountID, id), http.StatusOK, message)
}

// WriteDeleted answers a delete command: its error, or 204, since nothing
// is left to show.
func WriteDeleted(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// WriteFiltered answers a list GET: filter reads the request's filters into
// the list query of the page, adding their problems to errs with those of
// page and per_page, so that one 422 names every problem of the request;
// else the page the query finds, in the list envelope. baseURL is the
// configured public base URL ("" for the request's own).
func WriteFiltered[Q any, T any](w http.ResponseWriter, r *http.Request, h usecase.QueryHandler[Q, usecase.Page[T]], baseURL string,
	filter func(params url.Values, page Page, errs fault.FieldErrors) Q) {
	params := r.URL.Query()
	errs := fault.FieldErrors{}
	page := PageParams(params, errs)
	q := filter(params, page, errs)
	if err := errs.Err(); err != nil {
		WriteError(w, r, err)
		return
	}
	WriteListed(w, r, h, q, page, baseURL)
}
