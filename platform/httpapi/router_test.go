package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"shipd/platform/httpapi"
)

func newTestRouter() *mux.Router {
	ok := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }
	r := httpapi.NewRouter()
	r.HandleFunc("/v1/things", ok).Methods(http.MethodGet)
	r.HandleFunc("/v1/things", ok).Methods(http.MethodPost)
	r.HandleFunc("/v1/things/{id}", ok).Methods(http.MethodGet, http.MethodDelete)
	r.HandleFunc("/v1/things/{id}", ok).Methods(http.MethodPatch)
	r.HandleFunc("/v1/things/{id}/validate", ok).Methods(http.MethodPost)
	sub := r.PathPrefix("/v2").Subrouter()
	sub.HandleFunc("/items", ok).Methods(http.MethodPut)
	return r
}

func TestRouterMatches(t *testing.T) {
	r := newTestRouter()
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/v1/things"},
		{http.MethodPost, "/v1/things"},
		{http.MethodDelete, "/v1/things/sh_1"},
		{http.MethodPost, "/v1/things/sh_1/validate"},
		{http.MethodPut, "/v2/items"},
	} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("%s %s = %d, want 200", c.method, c.path, rec.Code)
		}
	}
}

func TestRouterNotFound(t *testing.T) {
	r := newTestRouter()
	for _, path := range []string{"/nope", "/v1/things/sh_1/unknown", "/v2/other"} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		b := readError(t, rec, http.StatusNotFound)
		if b.Error.Code != "not_found" {
			t.Errorf("%s: code = %q", path, b.Error.Code)
		}
	}
}

func TestRouterMethodNotAllowed(t *testing.T) {
	r := newTestRouter()
	tests := []struct {
		method, path, allow string
	}{
		{http.MethodPut, "/v1/things", "GET, POST"},
		{http.MethodDelete, "/v1/things", "GET, POST"},
		{http.MethodPost, "/v1/things/sh_1", "DELETE, GET, PATCH"},
		{http.MethodGet, "/v1/things/sh_1/validate", "POST"},
		{http.MethodGet, "/v2/items", "PUT"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			b := readError(t, rec, http.StatusMethodNotAllowed)
			if b.Error.Code != "method_not_allowed" {
				t.Errorf("code = %q", b.Error.Code)
			}
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}
