package apptest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/platform/config"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// Send is Do reporting to t instead of the Env's test: a fuzz test starts
// one Env in its setup and sends every input under that input's own t
// (the fuzz target's F must not fail from inside an input). Under
// `go test -fuzz` only the answer is checked against the OpenAPI document
// (openapi.go).
func (e *Env) Send(t testing.TB, req Request) *Response {
	t.Helper()
	return e.first.send(t, req, true)
}

// RawQuery turns fuzzed text into a query string the server takes apart as
// the text says: bytes a request line cannot carry (controls, space,
// non-ASCII, '#') are percent-encoded, so the handler still sees them;
// everything else, including '%', '&', '=' and broken escapes, is sent as
// it is.
func RawQuery(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// errorShape is the error body of ADR 0004.
type errorShape struct {
	Message *string             `json:"message"`
	Errors  map[string][]string `json:"errors"`
	Error   *struct {
		Code      string              `json:"code"`
		Message   string              `json:"message"`
		Status    int                 `json:"status"`
		Errors    map[string][]string `json:"errors"`
		RequestID string              `json:"request_id"`
	} `json:"error"`
}

// CheckAnswer fails t unless res is what any input may get: no 5xx, a JSON
// body (a 2xx that says it is another type, a label file, excepted), and
// for a 4xx the one error shape with its status and request id.
func CheckAnswer(t testing.TB, what string, res *Response) {
	t.Helper()
	if res.Status >= 500 {
		t.Fatalf("%s: status %d: %s", what, res.Status, res.Body)
	}
	if res.Status == http.StatusNoContent {
		return
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		if res.Status < 300 && mt != "" {
			return
		}
		t.Fatalf("%s: status %d with Content-Type %q: %s", what, res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	if !json.Valid(res.Body) {
		t.Fatalf("%s: status %d, body is not JSON: %q", what, res.Status, res.Body)
	}
	if res.Status < 400 {
		return
	}
	var body errorShape
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Error == nil || body.Message == nil {
		t.Fatalf("%s: status %d, not the error shape: %s", what, res.Status, res.Body)
	}
	e := body.Error
	switch {
	case e.Status != res.Status:
		t.Fatalf("%s: status %d, error.status %d: %s", what, res.Status, e.Status, res.Body)
	case e.Code == "" || e.Message == "" || *body.Message != e.Message:
		t.Fatalf("%s: error code or messages missing or disagreeing: %s", what, res.Body)
	case !reflect.DeepEqual(body.Errors, e.Errors):
		t.Fatalf("%s: errors and error.errors differ: %s", what, res.Body)
	case e.RequestID == "" || e.RequestID != res.Header.Get("X-Request-Id"):
		t.Fatalf("%s: request_id %q, X-Request-Id %q", what, e.RequestID, res.Header.Get("X-Request-Id"))
	}
}

// Quiet keeps the background small: event subscribers and workers poll
// once a second instead of every few milliseconds, and each worker books,
// checks or delivers one item at a time. A fuzz test sends requests as fast
// as it can and waits for no projection; a busy background would take the
// CPU its inputs need.
func Quiet() Option {
	return WithConfig(func(c *config.Config) {
		c.MessagePollInterval = time.Second
		c.WorkerPollInterval = time.Second
		c.BookingConcurrency = 1
		c.TrackingConcurrency = 1
		c.WebhookConcurrency = 1
	})
}

// CheckWrites sends body as it comes to POST collection and to PUT and
// PATCH of collection/id, and checks each answer (CheckAnswer): the body
// fuzz test of every module's writes.
func (e *Env) CheckWrites(t testing.TB, key, collection, id, body string) {
	t.Helper()
	for _, req := range []Request{
		{Method: http.MethodPost, Path: collection, Key: key, Body: body},
		{Method: http.MethodPut, Path: collection + "/" + id, Key: key, Body: body},
		{Method: http.MethodPatch, Path: collection + "/" + id, Key: key, Body: body},
	} {
		CheckAnswer(t, req.Method+" "+req.Path, e.Send(t, req))
	}
}

// DecodeBody decodes body into dst as every handler decodes a JSON request
// body (httpapi.Decode), for fuzz tests of the decoders without HTTP.
func DecodeBody(body string, dst any) error {
	return httpapi.Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), dst)
}

// CheckRefusal fails t when err would not answer 400 or 422; it reports
// whether the request passed (err is nil).
func CheckRefusal(t testing.TB, err error) bool {
	t.Helper()
	if err == nil {
		return true
	}
	if fe, ok := fault.As(err); !ok || fe.Kind != fault.KindInvalid && fe.Kind != fault.KindValidation {
		t.Fatalf("refused with %v, which is not a 400 or 422", err)
	}
	return false
}
