package apptest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

const notFound = `{"message":"No.","error":{"code":"not_found","message":"No.","status":404,"request_id":"req_1"}}`

// The validator, against a fake service that answers what each case says.
func TestExchangesAreCheckedAgainstTheDocument(t *testing.T) {
	type answer struct {
		status int
		ct     string
		body   string
	}
	for _, c := range []struct {
		name    string
		req     Request
		answer  answer
		mention string // in the one failure wanted; empty wants none
	}{
		{"outside /v1", Request{Method: http.MethodGet, Path: "/healthz"}, answer{200, "text/plain", "ok"}, ""},
		{"an unknown /v1 path answered 404", Request{Method: http.MethodGet, Path: "/v1/nope"}, answer{404, "application/json", notFound}, ""},
		{"an unknown /v1 path answered 200", Request{Method: http.MethodGet, Path: "/v1/nope"}, answer{200, "application/json", `{}`}, "no such path"},
		{"an unknown /v1 path answered another shape", Request{Method: http.MethodGet, Path: "/v1/nope"}, answer{404, "application/json", `{"error":"no"}`}, "ErrorBody"},
		{"an undocumented method answered 405", Request{Method: http.MethodDelete, Path: "/v1/providers"}, answer{405, "application/json",
			strings.ReplaceAll(strings.ReplaceAll(notFound, "not_found", "method_not_allowed"), "404", "405")}, ""},
		{"an undocumented method answered 200", Request{Method: http.MethodDelete, Path: "/v1/providers"}, answer{200, "application/json", `{}`}, "no such operation"},
		{"an answer unlike its schema", Request{Method: http.MethodGet, Path: "/v1/providers", Key: "k"}, answer{200, "application/json", `{"data":"x"}`}, "not as the OpenAPI document says"},
		{"an undocumented status", Request{Method: http.MethodGet, Path: "/v1/providers", Key: "k"}, answer{418, "application/json", notFound}, "status is not supported"},
		{"an invalid request refused", Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: "k", Body: `{"name":5}`},
			answer{422, "application/json", `{"message":"Bad.","errors":{"name":["must be a string"]},"error":{"code":"validation_failed","message":"Bad.","status":422,"errors":{"name":["must be a string"]},"request_id":"r"}}`}, ""},
		{"an invalid request accepted", Request{Method: http.MethodGet, Path: "/v1/shipments?per_page=1000", Key: "k"},
			answer{200, "application/json", `{"data":[],"meta":{},"links":{}}`}, "refuses the request"},
		{"a corrupted read model", Request{Method: http.MethodGet, Path: "/v1/providers", Key: "k", Unchecked: "on purpose"}, answer{200, "application/json", `{"data":"x"}`}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.answer.ct)
				w.Header().Set("X-Request-Id", "req_1")
				w.WriteHeader(c.answer.status)
				_, _ = w.Write([]byte(c.answer.body))
			}))
			defer srv.Close()
			rec := &recorder{TB: t}
			in := &Instance{URL: srv.URL, env: &Env{t: rec}}
			in.Do(c.req)
			switch {
			case c.mention == "" && len(rec.errors) > 0:
				t.Errorf("want no failure, got %q", rec.errors)
			case c.mention != "" && (len(rec.errors) == 0 || !strings.Contains(strings.Join(rec.errors, "\n"), c.mention)):
				t.Errorf("want a failure saying %q, got %q", c.mention, rec.errors)
			}
		})
	}
}

func TestDeliveriesAreCheckedAgainstTheDocument(t *testing.T) {
	header := func(event string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for _, k := range []string{"X-Service-Delivery", "X-Service-Timestamp", "X-Service-Signature", "Webhook-Id", "Webhook-Timestamp", "Webhook-Signature"} {
			h.Set(k, "1")
		}
		h.Set("X-Service-Event", event)
		return h
	}
	deleted := `{"id":"evt_1","type":"tracking_parcel.deleted","created_at":"2026-11-21T10:00:00Z","data":{"tracking_parcel":{"id":"tp_1"}}}`
	for _, c := range []struct {
		name    string
		header  http.Header
		body    string
		mention string
	}{
		{"an event the document does not have", header("parcel.lost"), `{}`, "do not have"},
		{"a payload unlike its schema", header("tracking_parcel.deleted"), `{"id":5}`, "not as the OpenAPI document's webhook says"},
		{"a required header missing", func() http.Header { h := header("tracking_parcel.deleted"); h.Del("Webhook-Signature"); return h }(), deleted, "Webhook-Signature"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			CheckDelivery(rec, c.header, []byte(c.body))
			if len(rec.errors) == 0 || !strings.Contains(strings.Join(rec.errors, "\n"), c.mention) {
				t.Errorf("want a failure saying %q, got %q", c.mention, rec.errors)
			}
		})
	}
}
