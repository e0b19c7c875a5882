package apptest

// Every exchange the test client makes (Env.Do, Instance.Do, Env.Send and
// the helpers on them) is checked against the OpenAPI document
// (platform/apidoc/openapi.json), so the document cannot drift from what the
// service does: it is the truth users were promised (ADR 0025, issue 8).
// kin-openapi's openapi3filter checks the request and the answer against the
// operation its gorillamux router finds; the document is loaded and the
// router built once per test binary.
//
// The rule:
//   - Only paths under /v1 are checked; the operator endpoints, the dashboard
//     and the docs pages are not in the document.
//   - A /v1 path the document does not have must be answered 404, and a method
//     it does not have on a documented path 404 or 405, in the error shape.
//     Any other answer is drift.
//   - The answer must match its operation in the document: a documented
//     status, its headers, its content type and its schema. Always, error
//     answers included, and for fuzzed inputs too.
//   - The request must match too, but tests send invalid requests on purpose
//     (bad JSON, wrong types, missing fields, unknown values) to see them
//     refused. So a request the document refuses is only a mismatch when the
//     service accepted it (answered 2xx): the document and the service then
//     disagree on what is valid.
//   - Under `go test -fuzz`, the inputs a fuzz target sends (Env.Send) have
//     their answers checked only: the request check would add to a cost
//     already high (see checkDocumented). The seed corpus, run by a plain
//     `go test`, is checked in full. (A member in another case, "Name" for
//     "name", which encoding/json takes as the field and no schema can state,
//     is refused by httpapi.Decode as an unknown member, ADR 0043.)
//   - Authentication is the service's: the validator accepts any key.
//   - Request.Unchecked skips an exchange that cannot match on purpose (a
//     test that corrupts a read model reads the garbage back).
//
// Webhook deliveries a test receives can be held to the document's
// webhooks with CheckDelivery.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"shipd/platform/apidoc"
)

// document is the OpenAPI document and its router, built on first use.
var document = sync.OnceValues(func() (*openAPI, error) {
	doc, err := openapi3.NewLoader().LoadFromData(apidoc.Document())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	errorBody := doc.Components.Schemas["ErrorBody"]
	if errorBody == nil {
		return nil, errors.New("no ErrorBody schema in the document")
	}
	// Label downloads answer the raw file.
	for _, ct := range []string{"application/pdf", "application/x-zpl", "application/x-epl"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
	options := &openapi3filter.Options{
		AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	options.WithCustomSchemaErrorFunc(schemaError)
	return &openAPI{spec: doc, prefix: doc.Servers[0].URL, router: router, errorBody: errorBody, options: options}, nil
})

// schemaError says where and why a value failed its schema, without the
// schema itself (dozens of lines).
func schemaError(err *openapi3.SchemaError) string {
	reason := err.Reason
	if cause := errors.Unwrap(err); cause != nil {
		reason = cause.Error() // the JSON Schema 2020-12 validator's or a format's own words
	}
	if reason == "" {
		reason = "fails " + err.SchemaField
	}
	return fmt.Sprintf("at %q: %s", "/"+strings.Join(err.JSONPointer(), "/"), reason)
}

type openAPI struct {
	spec      *openapi3.T
	prefix    string // "/v1"
	router    routers.Router
	errorBody *openapi3.SchemaRef
	options   *openapi3filter.Options
}

// fuzzing is whether this test binary runs `go test -fuzz`.
var fuzzing = sync.OnceValue(func() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
})

// asLabelFile is req, unless it asks for a label's raw file the way the
// spec promised it (GET /v1/shipments/{id}/label?download=1): that answer
// is the file of GET .../label/file, which the document describes under an
// operation of its own so generated clients type the JSON answer and the
// file apart (ADR 0039); such a request is checked as that operation.
func asLabelFile(req *http.Request) *http.Request {
	download, _ := strconv.ParseBool(req.URL.Query().Get("download"))
	if req.Method != http.MethodGet || !download || !strings.HasSuffix(req.URL.Path, "/label") {
		return req
	}
	alias := req.Clone(req.Context())
	alias.URL.Path += "/file"
	alias.URL.RawPath = ""
	q := alias.URL.Query()
	q.Del("download")
	alias.URL.RawQuery = q.Encode()
	return alias
}

// checkDocumented reports to t where req (whose body was body) and its
// answer res disagree with the document; the request only when requests,
// and only when the service accepted it.
//
// kin-openapi (v0.152) compiles a JSON Schema 2020-12 validator for every
// schema it checks, each time: a few milliseconds per exchange.
func checkDocumented(t testing.TB, req *http.Request, body []byte, res *Response, requests bool) {
	t.Helper()
	doc, err := document()
	if err != nil {
		t.Fatalf("loading the OpenAPI document: %v", err)
	}
	path := req.URL.EscapedPath()
	if path != doc.prefix && !strings.HasPrefix(path, doc.prefix+"/") {
		return
	}
	what := req.Method + " " + req.URL.RequestURI()
	req = asLabelFile(req)
	route, params, err := doc.router.FindRoute(req)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		if res.Status != http.StatusNotFound {
			t.Errorf("%s answered %d, but the OpenAPI document has no such path (drift): %s", what, res.Status, clip(res))
			return
		}
		doc.checkErrorBody(t, what, res)
		return
	case errors.Is(err, routers.ErrMethodNotAllowed):
		if res.Status != http.StatusNotFound && res.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s answered %d, but the OpenAPI document has no such operation (drift): %s", what, res.Status, clip(res))
			return
		}
		doc.checkErrorBody(t, what, res)
		return
	case err != nil:
		t.Errorf("%s: finding its operation in the OpenAPI document: %v", what, err)
		return
	}

	ctx := context.Background()
	vr := req.Clone(ctx)
	vr.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: vr, PathParams: params, Route: route, Options: doc.options}
	if requests && res.Status >= 200 && res.Status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s answered %d, but the OpenAPI document refuses the request: %v\nbody: %s", what, res.Status, err, body)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Status, Header: res.Header,
		Body: io.NopCloser(bytes.NewReader(res.Body)), Options: doc.options}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s answered %d, not as the OpenAPI document says: %v\nanswer: %s", what, res.Status, err, clip(res))
	}
}

// checkErrorBody holds an answer no operation describes (an unknown route)
// to the error shape every error has.
func (doc *openAPI) checkErrorBody(t testing.TB, what string, res *Response) {
	t.Helper()
	var v any
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" || json.Unmarshal(res.Body, &v) != nil {
		t.Errorf("%s answered %d with %q, not the JSON error body: %s", what, res.Status, res.Header.Get("Content-Type"), clip(res))
		return
	}
	if err := doc.errorBody.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors(), openapi3.VisitAsResponse(),
		openapi3.SetSchemaErrorMessageCustomizer(schemaError)); err != nil {
		t.Errorf("%s answered %d, not the document's ErrorBody: %v\nanswer: %s", what, res.Status, err, clip(res))
	}
}

// clip is the answer's body for a message, cut short when long or binary.
func clip(res *Response) string {
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		return res.Header.Get("Content-Type") + ", " + strconv.Itoa(len(res.Body)) + " bytes"
	}
	if len(res.Body) > 2000 {
		return string(res.Body[:2000]) + "…"
	}
	return string(res.Body)
}

// CheckDelivery fails t unless a webhook delivery a test's receiver got (its
// headers and raw body) is one of the document's webhooks: the event named
// by X-Service-Event, its required headers and its payload schema. It may
// be called from a receiver's handler.
func CheckDelivery(t testing.TB, header http.Header, body []byte) {
	t.Helper()
	doc, err := document()
	if err != nil {
		t.Errorf("loading the OpenAPI document: %v", err) // not Fatalf: receivers run on their own goroutines
		return
	}
	event := header.Get("X-Service-Event")
	item := doc.spec.Webhooks[event]
	if item == nil || item.Post == nil {
		t.Errorf("a delivery of %q, which the OpenAPI document's webhooks do not have: %s", event, body)
		return
	}
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header = header.Clone()
	route := &routers.Route{Spec: doc.spec, Path: event, PathItem: item, Method: http.MethodPost, Operation: item.Post}
	in := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: doc.options}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		t.Errorf("the %s delivery is not as the OpenAPI document's webhook says: %v\n%s", event, err, body)
	}
}
