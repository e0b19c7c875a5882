//go:build faults

package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hangAfter is how long the client waits for an answer: one that takes
// longer counts as a hang, which the service must never do.
const hangAfter = 10 * time.Second

var httpClient = &http.Client{
	Timeout:   hangAfter,
	Transport: &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second},
}

// client calls one instance's API with one account's key.
type client struct {
	base, key string
}

func (in *instance) client(acc account) client { return client{base: in.url, key: acc.key} }

// answer is what one request got: a status and body, or err when no answer
// came at all (refused, reset, timed out).
type answer struct {
	sent   time.Time
	took   time.Duration
	status int
	header http.Header
	body   []byte
	err    error
}

func (a answer) ok() bool { return a.err == nil && a.status >= 200 && a.status < 300 }

// done is when the answer (or the failure) came.
func (a answer) done() time.Time { return a.sent.Add(a.took) }

func (a answer) String() string {
	if a.err != nil {
		return "no answer: " + a.err.Error()
	}
	return fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(a.body))
}

// data is the "data" member of a single-resource answer.
func (a answer) data() map[string]any {
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(a.body, &env)
	return env.Data
}

// errorCode is error.code of an error answer.
func (a answer) errorCode() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(a.body, &env)
	return env.Error.Code
}

func (c client) call(method, path string, body any) answer {
	return c.callWith(method, path, nil, body)
}

// callWith is call with extra request headers (an Idempotency-Key).
func (c client) callWith(method, path string, headers map[string]string, body any) answer {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	a := answer{sent: time.Now()}
	res, err := httpClient.Do(req)
	if err != nil {
		a.took, a.err = time.Since(a.sent), err
		return a
	}
	defer res.Body.Close()
	a.body, a.err = io.ReadAll(res.Body)
	a.took, a.status, a.header = time.Since(a.sent), res.StatusCode, res.Header
	return a
}

// must makes a request that has to get status want, and returns its data.
func (c client) must(t *testing.T, method, path string, body any, want int) map[string]any {
	t.Helper()
	a := c.call(method, path, body)
	if a.err != nil || a.status != want {
		t.Fatalf("%s %s: %s, want %d", method, path, a, want)
	}
	return a.data()
}

// listPage is one page of a list endpoint.
type listPage struct {
	Data []map[string]any `json:"data"`
	Meta struct {
		Total    int `json:"total"`
		LastPage int `json:"last_page"`
	} `json:"meta"`
}

// listAll reads every page of a list (path may carry filters) and returns
// the items and meta.total of the first page. An error answer is a
// problem, not a failure: lists are polled while they converge.
func (c client) listAll(path string) ([]map[string]any, int, string) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var items []map[string]any
	total := -1
	for page := 1; ; page++ {
		a := c.call(http.MethodGet, fmt.Sprintf("%s%sper_page=100&page=%d", path, sep, page), nil)
		if !a.ok() {
			return nil, 0, fmt.Sprintf("GET %s: %s", path, a)
		}
		var p listPage
		if err := json.Unmarshal(a.body, &p); err != nil {
			return nil, 0, fmt.Sprintf("GET %s: %v", path, err)
		}
		if total < 0 {
			total = p.Meta.Total
		}
		items = append(items, p.Data...)
		if len(p.Data) == 0 || page >= p.Meta.LastPage {
			return items, total, ""
		}
	}
}

// count is meta.total of a list (path may carry filters), read from a page
// of one item.
func (c client) count(path string) (int, string) {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	a := c.call(http.MethodGet, path+sep+"per_page=1", nil)
	var p listPage
	if !a.ok() || json.Unmarshal(a.body, &p) != nil {
		return 0, fmt.Sprintf("GET %s: %s", path, a)
	}
	return p.Meta.Total, ""
}

// sandboxChannel creates a sandbox channel and validates it, so shipments
// may use it; with validate false it stays a draft (enough to be updated).
func sandboxChannel(t *testing.T, c client, name string, validate bool) string {
	t.Helper()
	ch := c.must(t, http.MethodPost, "/v1/shipping-channels", map[string]any{"name": name, "provider": "sandbox",
		"settings": map[string]any{"clientId": "fault-suite", "clientSecret": "fault-suite-secret", "productType": "STANDARD"}}, http.StatusCreated)
	id, _ := ch["id"].(string)
	if validate {
		if got := c.must(t, http.MethodPost, "/v1/shipping-channels/"+id+"/validate", nil, http.StatusOK); got["status"] != "active" {
			t.Fatalf("channel %s after validate: %v", id, got["status"])
		}
	}
	return id
}

// subscribe points a webhook subscription at the receiver's path.
func subscribe(t *testing.T, c client, rc *receiver, path string, events []string) string {
	t.Helper()
	sub := c.must(t, http.MethodPost, "/v1/webhook-subscriptions", map[string]any{"name": "fault suite " + path,
		"url": rc.url(path), "events": events, "secret": "fault-suite-webhook-secret"}, http.StatusCreated)
	id, _ := sub["id"].(string)
	return id
}
