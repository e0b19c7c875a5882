package shipd_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	shipd "shipd/sdk/go"
)

// operation is one operation of the served document: its method and a
// pattern of its path.
type operation struct {
	id      string
	method  string
	pattern *regexp.Regexp
}

var (
	documentOnce sync.Once
	documentOps  []operation
	documentErr  error

	calledMu sync.Mutex
	called   = map[string]int{} // operationId: 2xx answers seen
)

// operations reads the document as shipd serves it, the same one the
// client was generated from.
func operations() ([]operation, error) {
	documentOnce.Do(func() {
		resp, err := http.Get(shipdURL + "/v1/openapi.json")
		if err != nil {
			documentErr = err
			return
		}
		defer resp.Body.Close()
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if documentErr = json.NewDecoder(resp.Body).Decode(&doc); documentErr != nil {
			return
		}
		param := regexp.MustCompile(`\\\{[^/]+?\\\}`)
		for path, item := range doc.Paths {
			pattern := regexp.MustCompile("^/v1" + param.ReplaceAllString(regexp.QuoteMeta(path), "[^/]+") + "$")
			for method, raw := range item {
				var op struct {
					OperationID string `json:"operationId"`
				}
				if json.Unmarshal(raw, &op) != nil || op.OperationID == "" {
					continue // parameters, summary: not an operation
				}
				documentOps = append(documentOps, operation{op.OperationID, strings.ToUpper(method), pattern})
			}
		}
	})
	return documentOps, documentErr
}

// recorder is the transport of every test client: it notes which
// operation each request was and the statuses shipd answered, so tests can
// assert what went over the wire, and so that TestMain can tell whether
// every operation was called.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []exchange
}

type exchange struct {
	method, path, operation string
	query                   url.Values
	status                  int // 0: no answer
	header                  http.Header
	requestHeader           http.Header
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	ex := exchange{method: req.Method, path: req.URL.Path, query: req.URL.Query(), requestHeader: req.Header.Clone()}
	ops, _ := operations()
	for _, op := range ops {
		if op.method == req.Method && op.pattern.MatchString(req.URL.Path) {
			ex.operation = op.id
		}
	}
	if err == nil {
		ex.status, ex.header = resp.StatusCode, resp.Header.Clone()
		if resp.StatusCode < 300 && ex.operation != "" {
			calledMu.Lock()
			called[ex.operation]++
			calledMu.Unlock()
		}
	}
	r.mu.Lock()
	r.seen = append(r.seen, ex)
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.seen...)
}

// newClient is a client of the test shipd whose requests are recorded.
func newClient(t *testing.T, key string, opts ...shipd.Option) (*shipd.Client, *recorder) {
	t.Helper()
	return newClientAt(t, shipdURL, key, opts...)
}

func newClientAt(t *testing.T, base, key string, opts ...shipd.Option) (*shipd.Client, *recorder) {
	t.Helper()
	rec := &recorder{next: http.DefaultTransport}
	c, err := shipd.New(base, key, append([]shipd.Option{shipd.HTTPClient(&http.Client{Transport: rec})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

// checkEveryOperationCalled fails the run when an operation of the
// document never answered 2xx to a request made through the SDK.
func checkEveryOperationCalled() int {
	ops, err := operations()
	if err != nil || len(ops) == 0 {
		fmt.Fprintln(os.Stderr, "reading the document's operations:", err)
		return 1
	}
	calledMu.Lock()
	defer calledMu.Unlock()
	var missing []string
	for _, op := range ops {
		if called[op.id] == 0 {
			missing = append(missing, op.id)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		fmt.Fprintf(os.Stderr, "FAIL: operations of the document never called through the SDK with success: %s\n", strings.Join(missing, ", "))
		return 1
	}
	fmt.Printf("every one of the document's %d operations was called through the SDK\n", len(ops))
	return 0
}
