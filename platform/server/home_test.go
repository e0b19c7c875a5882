package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/config"
)

// get asks url with the Accept header accept and returns the status, the
// Content-Type and the body.
func get(t *testing.T, url, accept string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(body)
}

// GET / says where to go instead of a bare 404: the API reference, the
// OpenAPI document and the dashboard, as JSON to a client and as a page of
// links to a browser; every link it gives answers.
func TestHomePointsAtDocsAndDashboard(t *testing.T) {
	apptest.SkipInSplit(t, "asks one instance; the split's channels process is asked below")
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)

	status, contentType, body := get(t, env.URL()+"/", "")
	if status != http.StatusOK || !strings.HasPrefix(contentType, "application/json") {
		t.Fatalf("GET / = %d %s: %s", status, contentType, body)
	}
	var answer struct {
		Message string            `json:"message"`
		Links   map[string]string `json:"links"`
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"docs": "/docs", "openapi": "/v1/openapi.json", "dashboard": "/dashboard"}
	if len(answer.Links) != len(want) || !strings.Contains(answer.Message, "/v1") {
		t.Errorf("GET / = %s, want a message and the links %v", body, want)
	}
	for name, path := range want {
		if answer.Links[name] != env.URL()+path {
			t.Errorf("links.%s = %q, want %q", name, answer.Links[name], env.URL()+path)
			continue
		}
		// The dashboard sends a visitor to its sign-in page, which answers.
		if status, _, _ := get(t, answer.Links[name], ""); status != http.StatusOK {
			t.Errorf("%s (links.%s) answers %d", answer.Links[name], name, status)
		}
	}

	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	status, contentType, body = get(t, env.URL()+"/", browser)
	if status != http.StatusOK || !strings.HasPrefix(contentType, "text/html") {
		t.Fatalf("GET / from a browser = %d %s", status, contentType)
	}
	for _, path := range want {
		if !strings.Contains(body, `href="`+path+`"`) {
			t.Errorf("the page links no %s:\n%s", path, body)
		}
	}
	// Anything else stays a 404 in the error shape.
	if status, _, body := get(t, env.URL()+"/nothing-here", ""); status != http.StatusNotFound || !strings.Contains(body, `"not_found"`) {
		t.Errorf("GET /nothing-here = %d %s", status, body)
	}
}

// A process that does not run every module serves no dashboard (ADR 0033),
// and its GET / does not point at one: nginx sends / to the channels
// process (deploy/nginx/shipd.conf).
func TestHomeOfAModuleProcessOffersNoDashboard(t *testing.T) {
	apptest.SkipInSplit(t, "starts a process of its own")
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.Modules = []string{"channels"} }))
	status, _, body := get(t, env.URL()+"/", "application/json")
	if status != http.StatusOK || strings.Contains(body, "dashboard") || !strings.Contains(body, `"docs"`) {
		t.Errorf("GET / of the channels process = %d %s, want the docs without a dashboard", status, body)
	}
}
