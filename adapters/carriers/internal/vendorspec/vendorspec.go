// Package vendorspec holds a carrier fake to the vendor's OpenAPI document:
// every request the adapter sends and every answer the fake gives must be
// one the document describes, and, stricter than most vendor files say,
// an object may carry only the properties its schema names, so a misspelt
// or invented optional field fails the test instead of passing unnoticed
// (a vendor's server refuses or ignores it; either way it is a bug of ours).
//
// Only tests use it: it lives beside the fakes, not in the adapters.
package vendorspec

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Spec is a vendor's OpenAPI document, loaded strict and routed at a fake's
// address.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
	// Auth checks a request's security scheme; nil accepts any.
	Auth openapi3filter.AuthenticationFunc
}

// Load reads the document at path (a copy in the test's testdata), applies
// fix to it in memory (the few corrections a vendor file needs to load or
// to say what the vendor's documentation says; nil for none), checks it,
// makes its objects strict (Strict) and routes its operations under
// baseURL, the fake's address plus the vendor's base path.
func Load(path, baseURL string, fix func(*openapi3.T)) (*Spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	if fix != nil {
		fix(doc)
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("%s does not validate: %w", path, err)
	}
	Strict(doc)
	doc.Servers = openapi3.Servers{{URL: baseURL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing %s: %w", path, err)
	}
	return &Spec{doc: doc, router: router}, nil
}

// Doc is the loaded document (for a test that reads enums from it).
func (s *Spec) Doc() *openapi3.T { return s.doc }

// Strict refuses, in every object schema of doc that names its properties
// and says nothing of others, any property it does not name. Schemas that
// take part in an allOf (as the whole or a part) are left as they are: each
// part sees only its own properties, so strict parts would refuse each
// other's.
func Strict(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	inAllOf := map[*openapi3.Schema]bool{}
	var mark func(*openapi3.SchemaRef)
	mark = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || inAllOf[ref.Value] {
			return
		}
		inAllOf[ref.Value] = true
		for _, part := range ref.Value.AllOf {
			mark(part)
		}
	}
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.AllOf) > 0 {
			mark(ref)
		}
		for _, p := range s.Properties {
			walk(p)
		}
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, part := range group {
				walk(part)
			}
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
	}
	for _, ref := range doc.Components.Schemas {
		walk(ref)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(mt.Schema)
				}
			}
			for _, res := range op.Responses.Map() {
				if res.Value != nil {
					for _, mt := range res.Value.Content {
						walk(mt.Schema)
					}
				}
			}
		}
	}
	for s := range seen {
		if len(s.Properties) > 0 && !inAllOf[s] && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			s.AdditionalProperties = openapi3.AdditionalProperties{Has: openapi3.Ptr(false)}
		}
	}
}

// Request is a request the document describes, ready for its answer to be
// checked against it too.
type Request struct {
	in *openapi3filter.RequestValidationInput
	// PathParams are the operation's path parameters by name.
	PathParams map[string]string
	// Operation is the operation's id ("" when the document names none).
	Operation string
}

// CheckRequest finds r's operation and validates r (its body is read and
// put back). The error says what the document does not allow.
func (s *Spec) CheckRequest(r *http.Request) (*Request, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := s.router.FindRoute(r)
	if err != nil {
		return nil, fmt.Errorf("%s %s is no operation of the document: %w", r.Method, r.URL.Path, err)
	}
	auth := s.Auth
	if auth == nil {
		auth = openapi3filter.NoopAuthenticationFunc
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{SkipSettingDefaults: true, MultiError: true, AuthenticationFunc: auth}}
	err = openapi3filter.ValidateRequest(r.Context(), in)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s %s does not validate: %w\nbody: %s", r.Method, r.URL.Path, err, body)
	}
	return &Request{in: in, PathParams: params, Operation: route.Operation.OperationID}, nil
}

// CheckResponse validates the fake's answer to req: status, headers and
// body must be ones the document describes for the operation.
func (s *Spec) CheckResponse(ctx context.Context, req *Request, status int, header http.Header, body []byte) error {
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: req.in, Status: status, Header: header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("answer %d to %s %s does not validate: %w\n%s", status, req.in.Request.Method, req.in.Request.URL.Path, err, body)
	}
	return nil
}

// Answer lets answer write the fake's answer to req, holds what it wrote to
// req's operation in the document (CheckResponse), and sends it on to w.
// The error says how the answer departs from the document; the answer is
// sent all the same, so the adapter's side of the test still runs.
func (s *Spec) Answer(w http.ResponseWriter, req *Request, answer func(http.ResponseWriter)) error {
	rec := httptest.NewRecorder()
	answer(rec)
	err := s.CheckResponse(req.in.Request.Context(), req, rec.Code, rec.Header(), rec.Body.Bytes())
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
	return err
}
