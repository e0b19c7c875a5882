package vendorspec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"shipd/adapters/carriers/internal/vendorspec"
)

func load(t *testing.T) *vendorspec.Spec {
	t.Helper()
	spec, err := vendorspec.Load("testdata/parcels.yaml", "http://vendor.test/api", nil)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func post(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://vendor.test/api/parcels", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// Unknown properties are refused at every depth the document names
// properties at, while maps, allOf compositions and documented properties
// pass.
func TestRequestsMayCarryOnlyDocumentedProperties(t *testing.T) {
	spec := load(t)
	for _, tc := range []struct {
		body    string
		refused string // a word of the error, "" when it must pass
	}{
		{`{"weight": 1.5, "note": "fragile", "address": {"city": "Brno"}}`, ""},
		{`{"weight": 1.5, "extra": {"any": "key"}, "insured": {"amount": 10, "currency": "CZK"}}`, ""},
		{`{"weight": 1.5, "nte": "misspelt"}`, "nte"},
		{`{"weight": 1.5, "address": {"city": "Brno", "zip": "60200"}}`, "zip"},
		{`{"note": "no weight"}`, "weight"},
	} {
		req, err := spec.CheckRequest(post(tc.body))
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.body, err)
		case tc.refused != "" && err == nil:
			t.Errorf("%s: passed, want refused for %s", tc.body, tc.refused)
		case tc.refused != "" && !strings.Contains(err.Error(), tc.refused):
			t.Errorf("%s: refused without naming %s: %v", tc.body, tc.refused, err)
		case err == nil && req.Operation != "createParcel":
			t.Errorf("%s: operation %q", tc.body, req.Operation)
		}
	}
}

func TestAnswersAreCheckedToo(t *testing.T) {
	spec := load(t)
	req, err := spec.CheckRequest(post(`{"weight": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if err := spec.CheckResponse(context.Background(), req, 201, h, []byte(`{"id": "P1"}`)); err != nil {
		t.Errorf("a documented answer: %v", err)
	}
	if err := spec.CheckResponse(context.Background(), req, 201, h, []byte(`{"id": "P1", "trackingNo": "X"}`)); err == nil {
		t.Error("an answer with an undocumented property passed")
	}
	if err := spec.CheckResponse(context.Background(), req, 500, h, []byte(`{}`)); err == nil {
		t.Error("an undocumented status passed")
	}
}

func TestARequestOfNoOperationIsRefused(t *testing.T) {
	spec := load(t)
	r := httptest.NewRequest(http.MethodGet, "http://vendor.test/api/labels", nil)
	if _, err := spec.CheckRequest(r); err == nil {
		t.Error("GET /labels passed")
	}
}

// Answer sends on what the fake wrote and says how it departs from the
// document.
func TestAnswerSendsOnAndChecks(t *testing.T) {
	spec := load(t)
	req, err := spec.CheckRequest(post(`{"weight": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body string
		ok   bool
	}{{`{"id": "P1"}`, true}, {`{"id": "P1", "trackingNo": "X"}`, false}} {
		w := httptest.NewRecorder()
		err := spec.Answer(w, req, func(rec http.ResponseWriter) {
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(http.StatusCreated)
			rec.Write([]byte(tc.body))
		})
		if (err == nil) != tc.ok {
			t.Errorf("%s: check said %v", tc.body, err)
		}
		if w.Code != http.StatusCreated || w.Body.String() != tc.body || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: sent on %d %q %q", tc.body, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
}
