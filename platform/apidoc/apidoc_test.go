package apidoc_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"shipd/platform/apidoc"
	"shipd/platform/carrier"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(apidoc.Document())
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	return doc
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	doc := load(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	if len(doc.Webhooks) == 0 {
		t.Error("no webhooks")
	}
}

// The parcel bound the document states is the one the service enforces
// before it knows the provider, and the most any provider may publish.
func TestParcelBoundIsTheServices(t *testing.T) {
	schemas := load(t).Components.Schemas
	parcels := schemas["CreateShipment"].Value.Properties["parcels"].Value
	if parcels.MaxItems == nil || *parcels.MaxItems != carrier.MaxParcelsPerShipment {
		t.Errorf("CreateShipment.parcels maxItems = %v, want %d", parcels.MaxItems, carrier.MaxParcelsPerShipment)
	}
	limit := schemas["Provider"].Value.Properties["max_parcels_per_shipment"].Value
	if limit.Max == nil || *limit.Max != carrier.MaxParcelsPerShipment || limit.Min == nil || *limit.Min != 1 {
		t.Errorf("Provider.max_parcels_per_shipment bounds %v..%v, want 1..%d", limit.Min, limit.Max, carrier.MaxParcelsPerShipment)
	}
}

// Every operation has an id, a summary, one tag and its error answers; every
// one but the document itself needs a key and names its permission.
func TestEveryOperationIsDescribed(t *testing.T) {
	doc := load(t)
	ids := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.OperationID == "" || ids[op.OperationID] {
				t.Errorf("%s: operationId %q missing or repeated", name, op.OperationID)
			}
			ids[op.OperationID] = true
			if op.Summary == "" || len(op.Tags) != 1 {
				t.Errorf("%s: summary %q, tags %v", name, op.Summary, op.Tags)
			}
			if path == "/openapi.json" {
				if op.Security == nil || len(*op.Security) != 0 {
					t.Errorf("%s must need no key", name)
				}
				continue
			}
			if op.Security == nil || len(*op.Security) != 1 || len((*op.Security)[0]["bearerAuth"]) != 1 {
				t.Errorf("%s: security %v, want bearerAuth with one permission", name, op.Security)
			}
			for _, code := range []int{400, 401, 403, 429, 500, 503} {
				if op.Responses.Status(code) == nil {
					t.Errorf("%s: no %d answer", name, code)
				}
			}
			if method == http.MethodPost && op.Parameters.GetByInAndName("header", "Idempotency-Key") == nil {
				t.Errorf("%s: no Idempotency-Key header", name)
			}
		}
	}
}

// Every request body takes only the members its schema lists, at every
// depth (issue 30, ADR 0043): an object schema with properties under a
// request body says additionalProperties: false. Free-form objects
// (metadata, settings, external_data) list no properties.
func TestRequestBodiesListTheirMembers(t *testing.T) {
	doc := load(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil {
				continue
			}
			for _, media := range op.RequestBody.Value.Content {
				closedMembers(t, method+" "+path, media.Schema, map[*openapi3.Schema]bool{})
			}
		}
	}
}

func closedMembers(t *testing.T, where string, ref *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) {
	t.Helper()
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return
	}
	s := ref.Value
	seen[s] = true
	if ref.Ref != "" {
		where += " " + ref.Ref
	}
	if len(s.Properties) > 0 && (s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has) {
		t.Errorf("%s: an object with properties that does not say additionalProperties: false", where)
	}
	for name, p := range s.Properties {
		closedMembers(t, where+"."+name, p, seen)
	}
	closedMembers(t, where+"[]", s.Items, seen)
	for _, group := range [][]*openapi3.SchemaRef{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range group {
			closedMembers(t, where, sub, seen)
		}
	}
}

func TestHandlerServesTheDocument(t *testing.T) {
	rec := httptest.NewRecorder()
	apidoc.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || !bytes.Equal(rec.Body.Bytes(), apidoc.Document()) {
		t.Errorf("answer %d %q, %d bytes", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
}
