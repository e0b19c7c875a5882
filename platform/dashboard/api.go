package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
)

// The dashboard reads and changes channels, shipments, tracking and webhooks
// through the service's own /v1 API, called in process with the signed-in
// user's account as the principal (ADR 0027). It then sees exactly what that
// account's keys see, validates input with the API's own rules, and imports
// no module.

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
// each field's reasons, one line each.
type problem struct {
	Message string
	Fields  []string // "field: reason"
}

func (a apiAnswer) problem() problem {
	var body httpapi.ErrorBody
	if err := json.Unmarshal(a.Body, &body); err != nil || body.Error.Message == "" {
		return problem{Message: fmt.Sprintf("The request failed (%d %s).", a.Status, http.StatusText(a.Status))}
	}
	p := problem{Message: body.Error.Message}
	for field, reasons := range body.Error.Errors {
		for _, reason := range reasons {
			p.Fields = append(p.Fields, field+": "+reason)
		}
	}
	slices.Sort(p.Fields)
	return p
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
		raw, err := json.Marshal(c.Body)
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
	rec := &recorder{header: http.Header{}}
	d.api.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return apiAnswer{Status: rec.status, Header: rec.header, Body: rec.body.Bytes()}, nil
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

// recorder keeps an in-process answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
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
