package httpapi_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"testing"

	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

func TestParsePage(t *testing.T) {
	tests := []struct {
		query      string
		want       httpapi.Page
		wantFields []string // fields in error; nil means no error
	}{
		{"", httpapi.Page{Number: 1, PerPage: 20}, nil},
		{"page=3&per_page=100", httpapi.Page{Number: 3, PerPage: 100}, nil},
		{"per_page=1", httpapi.Page{Number: 1, PerPage: 1}, nil},
		{"page=1000000", httpapi.Page{Number: 1000000, PerPage: 20}, nil},
		{"page=0", httpapi.Page{}, []string{"page"}},
		{"page=-2", httpapi.Page{}, []string{"page"}},
		{"page=1000001", httpapi.Page{}, []string{"page"}},
		{"page=two", httpapi.Page{}, []string{"page"}},
		{"per_page=101", httpapi.Page{}, []string{"per_page"}},
		{"per_page=0", httpapi.Page{}, []string{"per_page"}},
		{"per_page=abc", httpapi.Page{}, []string{"per_page"}},
		{"page=0&per_page=abc", httpapi.Page{}, []string{"page", "per_page"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.query)
			got, err := httpapi.ParsePage(q)
			if tt.wantFields == nil {
				if err != nil || got != tt.want {
					t.Fatalf("ParsePage = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			fe, ok := fault.As(err)
			if !ok || fe.Kind != fault.KindValidation {
				t.Fatalf("ParsePage error = %v, want a validation fault", err)
			}
			for _, f := range tt.wantFields {
				if len(fe.Fields[f]) == 0 {
					t.Errorf("no message for %q in %v", f, fe.Fields)
				}
			}
			if len(fe.Fields) != len(tt.wantFields) {
				t.Errorf("fields = %v, want exactly %v", fe.Fields, tt.wantFields)
			}
		})
	}
}

func TestPageOffset(t *testing.T) {
	if got := (httpapi.Page{Number: 3, PerPage: 25}).Offset(); got != 50 {
		t.Errorf("Offset() = %d, want 50", got)
	}
	if got := (httpapi.Page{Number: 1, PerPage: 25}).Offset(); got != 0 {
		t.Errorf("Offset() of page 1 = %d, want 0", got)
	}
}

// listJSON builds a list for /v1/shipments?status=shipped and returns it as
// the client sees it.
func listJSON(t *testing.T, page httpapi.Page, count, total int) map[string]any {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://internal:8080/v1/shipments?status=shipped&page=99", nil)
	items := make([]int, count)
	b, err := json.Marshal(httpapi.NewList(r, "https://api.example.com", page, items, count, total))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func pageLink(n int) string {
	return "https://api.example.com/v1/shipments?page=" + strconv.Itoa(n) + "&per_page=10&status=shipped"
}

func TestNewList(t *testing.T) {
	tests := []struct {
		name         string
		page         int
		count, total int
		meta         map[string]any
		prev, next   any // nil means JSON null
	}{
		{"first page", 1, 10, 35,
			map[string]any{"current_page": 1.0, "from": 1.0, "to": 10.0, "last_page": 4.0, "total": 35.0},
			nil, pageLink(2)},
		{"middle page", 2, 10, 35,
			map[string]any{"current_page": 2.0, "from": 11.0, "to": 20.0, "last_page": 4.0, "total": 35.0},
			pageLink(1), pageLink(3)},
		{"last, partial page", 4, 5, 35,
			map[string]any{"current_page": 4.0, "from": 31.0, "to": 35.0, "last_page": 4.0, "total": 35.0},
			pageLink(3), nil},
		{"exactly full last page", 3, 10, 30,
			map[string]any{"current_page": 3.0, "from": 21.0, "to": 30.0, "last_page": 3.0, "total": 30.0},
			pageLink(2), nil},
		{"empty list", 1, 0, 0,
			map[string]any{"current_page": 1.0, "from": nil, "to": nil, "last_page": 1.0, "total": 0.0},
			nil, nil},
		{"past the last page", 9, 0, 35,
			map[string]any{"current_page": 9.0, "from": nil, "to": nil, "last_page": 4.0, "total": 35.0},
			pageLink(4), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := listJSON(t, httpapi.Page{Number: tt.page, PerPage: 10}, tt.count, tt.total)
			meta := out["meta"].(map[string]any)
			for k, want := range tt.meta {
				v, present := meta[k]
				if !present || v != want {
					t.Errorf("meta.%s = %v (present %v), want %v", k, v, present, want)
				}
			}
			if meta["path"] != "https://api.example.com/v1/shipments" || meta["per_page"] != 10.0 {
				t.Errorf("meta.path = %v, meta.per_page = %v", meta["path"], meta["per_page"])
			}
			links := out["links"].(map[string]any)
			last := int(tt.meta["last_page"].(float64))
			want := map[string]any{"first": pageLink(1), "last": pageLink(last), "prev": tt.prev, "next": tt.next}
			if !reflect.DeepEqual(links, want) {
				t.Errorf("links =\n %v\nwant\n %v", links, want)
			}
			if data, ok := out["data"].([]any); !ok || len(data) != tt.count {
				t.Errorf("data = %v, want %d items", out["data"], tt.count)
			}
		})
	}
}

// Without a configured base, links are under the address the connection
// came to, whatever Host the client wrote (ADR 0045); without a TCP
// connection they are relative.
func TestBaseURL(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "http://evil.example/v1/x", nil)
	if got := httpapi.BaseURL(r, "https://api.example.com"); got != "https://api.example.com" {
		t.Errorf("configured: %q", got)
	}
	if got := httpapi.BaseURL(r, ""); got != "" {
		t.Errorf("no connection: %q, want relative links", got)
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
	if got := httpapi.BaseURL(r, ""); got != "http://127.0.0.1:8080" {
		t.Errorf("from the connection: %q", got)
	}
	r.TLS = &tls.ConnectionState{}
	if got := httpapi.BaseURL(r, ""); got != "https://127.0.0.1:8080" {
		t.Errorf("from a TLS connection: %q", got)
	}
}
