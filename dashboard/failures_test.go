package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"shipd/platform/auth"
)

func TestAPIFailedNeverSaysWhoseAnIDIs(t *testing.T) {
	t.Parallel()
	d := New(nil, nil, nil)
	foreign := `{"message":"This shipment belongs to another account.","error":{"code":"forbidden","message":"This shipment belongs to another account.","status":403}}`
	unknown := `{"message":"Shipment not found.","error":{"code":"not_found","message":"Shipment not found.","status":404}}`
	for _, a := range []apiAnswer{{Status: http.StatusForbidden, Body: []byte(foreign)}, {Status: http.StatusNotFound, Body: []byte(unknown)}} {
		rec := httptest.NewRecorder()
		d.apiFailed(rec, httptest.NewRequest(http.MethodGet, "/dashboard/shipments/sh_1", nil), auth.Session{}, a, "shipment")
		page := rec.Body.String()
		if rec.Code != http.StatusForbidden || !strings.Contains(page, "Your account has no shipment with that id; nothing was changed.") ||
			strings.Contains(page, "another account") || strings.Contains(page, "not found") {
			t.Errorf("API %d: answered %d\n%s", a.Status, rec.Code, page)
		}
	}
}

func TestAPIFailedShowsOtherFailures(t *testing.T) {
	t.Parallel()
	d := New(nil, nil, nil)
	body := `{"message":"Too many requests.","error":{"code":"rate_limited","message":"Too many requests.","status":429}}`
	rec := httptest.NewRecorder()
	d.apiFailed(rec, httptest.NewRequest(http.MethodGet, "/dashboard/channels", nil), auth.Session{},
		apiAnswer{Status: http.StatusTooManyRequests, Body: []byte(body)}, "shipping channel")
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "Too many requests.") {
		t.Errorf("answered %d\n%s", rec.Code, rec.Body.String())
	}
	// An answer that is no failure at all (a body that did not decode): a bad gateway.
	rec = httptest.NewRecorder()
	d.apiFailed(rec, httptest.NewRequest(http.MethodGet, "/dashboard/channels", nil), auth.Session{},
		apiAnswer{Status: http.StatusOK, Body: []byte("not JSON")}, "shipping channel")
	if rec.Code != http.StatusBadGateway {
		t.Errorf("a 200 that failed: answered %d", rec.Code)
	}
}

func TestProblemReadsTheAPIErrorOnce(t *testing.T) {
	t.Parallel()
	nested := apiAnswer{Status: http.StatusUnprocessableEntity, Body: []byte(
		`{"message":"Invalid.","errors":{"name":["is required"]},"error":{"code":"validation_failed","message":"Invalid.","errors":{"name":["is required"],"settings.clientId":["is required"]}}}`)}
	p := nested.problem()
	if p.Code != "validation_failed" || p.Message != "Invalid." || len(p.Reasons) != 2 ||
		strings.Join(p.Fields, "|") != "name: is required|settings.clientId: is required" {
		t.Errorf("nested form: %+v", p)
	}
	topLevel := apiAnswer{Status: http.StatusBadRequest, Body: []byte(`{"message":"Invalid.","errors":{"page":["must be an integer"]},"error":{"message":"Invalid."}}`)}
	if p := topLevel.problem(); len(p.Reasons["page"]) != 1 || len(p.Fields) != 1 {
		t.Errorf("top-level reasons: %+v", p)
	}
	if p := (apiAnswer{Status: http.StatusBadGateway, Body: []byte("<html>")}).problem(); p.Message != "The request failed (502 Bad Gateway)." {
		t.Errorf("a body that is not the API's: %+v", p)
	}
}
