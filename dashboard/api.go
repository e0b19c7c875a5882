package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// The dashboard reads and changes channels, shipments, tracking, pickups,
// manifests and webhooks through the service's own /v1 API, called in
// process with the signed-in user's account as the principal (ADR 0027). It
// then sees exactly what that account's keys see, validates input with the
// API's own rules, and imports of the modules only their published contract
// types, which it reads the answers into: no copy of a record to drift from
// it (architecture rule 7).

// apiAnswer is what the API answered an in-process call.
type apiAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

// OK reports a 2xx answer.
func (a apiAnswer) OK() bool { return a.Status >= 200 && a.Status < 300 }

// decode reads the answer's JSON into v.
func (a apiAnswer) decode(v any) error {
	if err := json.Unmarshal(a.Body, v); err != nil {
		return fmt.Errorf("dashboard: the API answered %d with a body that is not the JSON expected: %w", a.Status, err)
	}
	return nil
}

// problem is an error answer as the page shows it: the API's message and
// each field's reasons.
type problem struct {
	Code    string // the API's error code: "label_not_available"
	Message string
	Fields  []string            // "field: reason", one line each, sorted
	Reasons map[string][]string // field ("name", "settings.clientId") → reasons
}

func (a apiAnswer) problem() problem {
	var body httpapi.ErrorBody
	if err := json.Unmarshal(a.Body, &body); err != nil {
		return problem{Message: fmt.Sprintf("The request failed (%d %s).", a.Status, http.StatusText(a.Status))}
	}
	p := problem{Code: body.Error.Code, Message: body.Error.Message, Reasons: body.Error.Errors}
	if p.Message == "" {
		p.Message = fmt.Sprintf("The request failed (%d %s).", a.Status, http.StatusText(a.Status))
	}
	if len(p.Reasons) == 0 {
		p.Reasons = body.Errors // the top-level form of the same reasons
	}
	for field, reasons := range p.Reasons {
		for _, reason := range reasons {
			p.Fields = append(p.Fields, field+": "+reason)
		}
	}
	slices.Sort(p.Fields)
	return p
}

// apiList is a list answer of the API: one page of items and where it
// stands among the others.
type apiList[T any] struct {
	Data []T          `json:"data"`
	Meta httpapi.Meta `json:"meta"`
}

// apiOne is an answer of the API about one resource.
type apiOne[T any] struct {
	Data T `json:"data"`
}

// apiCall is one in-process request to /v1.
type apiCall struct {
	Method string
	Path   string // under /v1, with its query: "/shipments?page=2"
	Body   any    // marshalled as JSON when not nil
}

// call sends c to the API as the session's account.
func (d *Dashboard) call(r *http.Request, s auth.Session, c apiCall) (apiAnswer, error) {
	var body io.Reader
	if c.Body != nil {
		raw, err := apiJSON(c.Body)
		if err != nil {
			return apiAnswer{}, err
		}
		body = bytes.NewReader(raw)
	}
	ctx := auth.WithPrincipal(r.Context(), s.Principal())
	req, err := http.NewRequestWithContext(ctx, c.Method, "/v1"+c.Path, body)
	if err != nil {
		return apiAnswer{}, err
	}
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// httptest's recorder is the standard library's in-memory ResponseWriter:
	// status (200 unless set), headers and body, nothing sent anywhere.
	rec := httptest.NewRecorder()
	d.api.ServeHTTP(rec, req)
	return apiAnswer{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}, nil
}

// get calls GET path and decodes a 2xx answer into v; other answers come back
// as they are, for the page to show.
func (d *Dashboard) get(r *http.Request, s auth.Session, path string, v any) (apiAnswer, error) {
	a, err := d.call(r, s, apiCall{Method: http.MethodGet, Path: path})
	if err != nil || !a.OK() || v == nil {
		return a, err
	}
	return a, a.decode(v)
}

// read calls GET path and decodes its answer into v, for a page that cannot
// go on without it. ok is false when the page was answered already: the
// account has no such what ("shipment"), or the call failed (apiFailed).
func (d *Dashboard) read(w http.ResponseWriter, r *http.Request, s auth.Session, path string, v any, what string) bool {
	a, err := d.get(r, s, path, v)
	if err != nil {
		d.failed(w, r, err)
		return false
	}
	if !a.OK() {
		d.apiFailed(w, r, s, a, what)
		return false
	}
	return true
}

// readPages reads the list at path (with its filters, without page or
// per_page) a hundred items a call, at most pages calls; complete is false
// when items were left unread. ok is false when the page was answered
// already (a call failed). A generic function: Go has no generic methods.
func readPages[T any](d *Dashboard, w http.ResponseWriter, r *http.Request, s auth.Session, path string, pages int, what string) (items []T, complete, ok bool) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	for page := 1; ; page++ {
		var list apiList[T]
		if !d.read(w, r, s, path+sep+"per_page=100&page="+strconv.Itoa(page), &list, what) {
			return nil, false, false
		}
		items = append(items, list.Data...)
		switch {
		case page >= list.Meta.LastPage:
			return items, true, true
		case page >= pages:
			return items, false, true
		}
	}
}

// readURLs reads the resource whose id the page's URL has ({id}); base is
// its collection's API path ("/shipments"). An id that cannot be the
// account's answers like one the API does not know.
func (d *Dashboard) readURLs(w http.ResponseWriter, r *http.Request, s auth.Session, base string, v any, what string) (id string, ok bool) {
	id, ok = pathID(mux.Vars(r)["id"])
	if !ok {
		d.notYours(w, s, what)
		return "", false
	}
	return id, d.read(w, r, s, base+"/"+id, v, what)
}

// pathID is an id from a URL or form, safe to put into an API path: ids are
// letters, digits, '_' and '-'; anything else cannot name a resource.
func pathID(id string) (string, bool) {
	if id == "" || len(id) > 100 || strings.IndexFunc(id, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-')
	}) >= 0 {
		return "", false
	}
	return id, true
}
