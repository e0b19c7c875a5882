package httpapi

import (
	"net/http"
	"sort"
	"strings"

	"github.com/gorilla/mux"
)

// NewRouter returns a mux router whose unknown routes and wrong methods
// answer in the error shape (405 with Allow).
func NewRouter() *mux.Router {
	r := mux.NewRouter()
	// mux answers 404 instead of 405 when a later route takes the method
	// but not the path, so both handlers ask the routes themselves.
	notFoundOrNotAllowed := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if allow := allowedMethods(r, req); allow != "" {
			w.Header().Set("Allow", allow)
			WriteErrorBody(w, req, http.StatusMethodNotAllowed, "method_not_allowed", "The method "+req.Method+" is not allowed here.", nil)
			return
		}
		WriteErrorBody(w, req, http.StatusNotFound, "not_found", "The requested resource does not exist.", nil)
	})
	r.NotFoundHandler = notFoundOrNotAllowed
	r.MethodNotAllowedHandler = notFoundOrNotAllowed
	r.Use(noteRoute)
	return r
}

// allowedMethods asks every leaf route, method by method, whether it would
// take the request's path.
func allowedMethods(router *mux.Router, req *http.Request) string {
	seen := map[string]bool{}
	_ = router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error { // Walk fails only with what this returns: nil
		ms, err := route.GetMethods()
		if err != nil {
			return nil // a route without methods (a subrouter prefix)
		}
		for _, m := range ms {
			probe := req.Clone(req.Context())
			probe.Method = m
			var match mux.RouteMatch
			if route.Match(probe, &match) && match.MatchErr == nil {
				seen[m] = true
			}
		}
		return nil
	})
	allowed := make([]string, 0, len(seen))
	for m := range seen {
		allowed = append(allowed, m)
	}
	sort.Strings(allowed)
	return strings.Join(allowed, ", ")
}
