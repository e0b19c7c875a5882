package apptest

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Request is one call to the API.
type Request struct {
	Method string
	Path   string // e.g. "/v1/shipping-channels"
	Key    string // bearer key; empty sends no Authorization
	Body   any    // marshalled as JSON unless a string or []byte (sent raw)
	// Headers are set on the request; an empty value removes the header
	// (an authenticated POST gets a fresh Idempotency-Key unless Headers
	// names one). "Host" sets the Host header the request is sent with.
	Headers map[string]string
	// Unchecked says why this exchange need not match the OpenAPI document
	// (a read model corrupted on purpose answers garbage); empty, it is
	// checked (openapi.go).
	Unchecked string
}

// Response is what the API answered.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object (%d): %s", r.Status, r.Body)
	}
	return m
}

// Data returns the "data" object of a single-resource answer.
func (r *Response) Data(t testing.TB) map[string]any {
	t.Helper()
	d, ok := r.JSON(t)["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", r.Body)
	}
	return d
}

// Do sends req to the first instance. Every exchange is checked against
// the OpenAPI document (openapi.go).
func (e *Env) Do(req Request) *Response {
	e.t.Helper()
	return e.first.Do(req)
}

// Do sends req to this instance and checks the exchange against the
// OpenAPI document (openapi.go).
func (in *Instance) Do(req Request) *Response {
	in.env.t.Helper()
	return in.send(in.env.t, req, false)
}

// send makes the exchange and checks it against the OpenAPI document; a
// fuzzer's input under `go test -fuzz` only on its answer (openapi.go).
func (in *Instance) send(t testing.TB, req Request, fuzzInput bool) *Response {
	t.Helper()
	var (
		body    io.Reader
		payload []byte
	)
	switch b := req.Body.(type) {
	case nil:
	case string:
		payload = []byte(b)
	case []byte:
		payload = b
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		payload = raw
	}
	if req.Body != nil {
		body = bytes.NewReader(payload)
	}
	hr, err := http.NewRequest(req.Method, in.URL+req.Path, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Key != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Key)
		if req.Method == http.MethodPost {
			// Every authenticated POST carries a key of its own, as a careful
			// client's would, so every test runs the handlers the way keyed
			// requests run them: their writes and the stored answer in one
			// transaction (ADR 0007). A test sets the header to send its own
			// key, or to "" to send none.
			hr.Header.Set("Idempotency-Key", "apptest-"+rand.Text())
		}
	}
	for k, v := range req.Headers {
		if strings.EqualFold(k, "Host") {
			hr.Host = v
			continue
		}
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	answer := &Response{Status: res.StatusCode, Header: res.Header, Body: raw}
	if sent := res.Request; sent != nil && sent.URL.String() != hr.URL.String() {
		// A redirect was followed: the answer is to the last request.
		hr, payload = sent, nil
	}
	if req.Unchecked == "" {
		checkDocumented(t, hr, payload, answer, !fuzzInput || !fuzzing())
	}
	return answer
}

// Eventually polls cond every 10 ms until it holds or within passes.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond) // between polls of cond
	}
}

// FieldErrors checks the answer's status and returns its "errors" object
// (field path → reasons), empty when there is none.
func (r *Response) FieldErrors(t testing.TB, status int) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	errs, _ := r.JSON(t)["errors"].(map[string]any)
	return errs
}

// CheckUnknownFields holds the answer to a 422 that names exactly the
// fields of want, each with one reason that starts as want says ("unknown
// field; did you mean ...?"): the answer to a body with members its
// operation does not know (httpapi.Decode).
func (r *Response) CheckUnknownFields(t testing.TB, want map[string]string) {
	t.Helper()
	errs := r.FieldErrors(t, http.StatusUnprocessableEntity)
	for field, reasons := range errs {
		list, _ := reasons.([]any)
		prefix, wanted := want[field]
		if first, _ := firstString(list); !wanted || len(list) != 1 || !strings.HasPrefix(first, prefix) {
			t.Errorf("%s: %v, want one reason starting %q", field, reasons, prefix)
		}
	}
	for field := range want {
		if _, ok := errs[field]; !ok {
			t.Errorf("no error for %s: %v", field, errs)
		}
	}
}

func firstString(list []any) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	s, ok := list[0].(string)
	return s, ok
}

// ActiveSandboxChannel creates a sandbox channel with key, validates it and
// returns its id. settings add to or replace the working credentials.
func (e *Env) ActiveSandboxChannel(key, name string, settings map[string]any) string {
	e.t.Helper()
	id := e.SandboxChannel(key, name, settings)
	if v := e.Do(Request{Method: http.MethodPost, Path: "/v1/shipping-channels/" + id + "/validate", Key: key}); v.Status != http.StatusOK {
		e.t.Fatalf("validating channel: %d %s", v.Status, v.Body)
	}
	return id
}

// SandboxChannel creates a channel on the sandbox carrier through the API,
// not validated (one shipping_channel.created event), and returns its id.
// settings are added to a client id and secret the sandbox accepts.
func (e *Env) SandboxChannel(key, name string, settings map[string]any) string {
	e.t.Helper()
	s := map[string]any{"clientId": "client", "clientSecret": "secret"}
	for k, v := range settings {
		s[k] = v
	}
	res := e.Do(Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key,
		Body: map[string]any{"name": name, "provider": "sandbox", "settings": s}})
	if res.Status != http.StatusCreated {
		e.t.Fatalf("creating channel: %d %s", res.Status, res.Body)
	}
	id, _ := res.Data(e.t)["id"].(string)
	return id
}
