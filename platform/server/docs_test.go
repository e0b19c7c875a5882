package server_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"shipd/platform/apidoc"
	"shipd/platform/apptest"
	"shipd/platform/server"
)

var (
	// What an HTML page loads or links to: src= and href= attribute values.
	htmlRefs = regexp.MustCompile(`(?i)\b(?:src|href)\s*=\s*["']([^"']*)["']`)
	cssURLs  = regexp.MustCompile(`(?i)url\(\s*["']?([^"')]*)`)
	absolute = regexp.MustCompile(`(?i)https?://`)
)

// sameOrigin says whether a reference the page loads stays on the service:
// a path (not a protocol-relative //host) or inline data.
func sameOrigin(ref string) bool {
	return (strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "//")) || strings.HasPrefix(ref, "data:")
}

// GET /docs is the API reference page: no key, and everything it loads comes
// from the service itself.
func TestDocsPageLoadsOnlyFromTheService(t *testing.T) {
	t.Parallel()
	env, _ := startKeepingApp(t)
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/docs"})
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /docs: %d %q %s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("GET /docs: no X-Content-Type-Options: nosniff")
	}
	checkCSPAllowsOnlySelf(t, res.Header.Get("Content-Security-Policy"))

	body := string(res.Body)
	if loc := absolute.FindStringIndex(body); loc != nil {
		t.Errorf("the page names an absolute URL: %.80s", body[loc[0]:])
	}
	for _, banned := range []string{"url(", "@import", "<style", "style="} {
		if strings.Contains(body, banned) {
			t.Errorf("the page contains %q", banned)
		}
	}
	if strings.Contains(strings.ReplaceAll(body, `<script src=`, ``), "<script") {
		t.Error("the page has an inline script")
	}
	refs := htmlRefs.FindAllStringSubmatch(body, -1)
	if len(refs) < 4 {
		t.Fatalf("the page loads only %v", refs)
	}
	wantType := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".png": "image/png", ".json": "application/json"}
	for _, m := range refs {
		ref := m[1]
		if !sameOrigin(ref) || strings.HasPrefix(ref, "data:") {
			t.Errorf("the page loads %q, not a path on the service", ref)
			continue
		}
		got := env.Do(apptest.Request{Method: http.MethodGet, Path: ref})
		path, _, _ := strings.Cut(ref, "?")
		ext := path[strings.LastIndex(path, "."):]
		if got.Status != http.StatusOK || got.Header.Get("Content-Type") != wantType[ext] || len(got.Body) == 0 {
			t.Errorf("GET %s (from the page): %d %q, %d bytes", ref, got.Status, got.Header.Get("Content-Type"), len(got.Body))
			continue
		}
		if strings.HasPrefix(path, apidoc.AssetsPath) && got.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", ref)
		}
		switch {
		case strings.HasSuffix(path, ".css"):
			if strings.Contains(string(got.Body), "@import") {
				t.Errorf("%s imports another stylesheet", path)
			}
			for _, u := range cssURLs.FindAllStringSubmatch(string(got.Body), -1) {
				if !sameOrigin(u[1]) && strings.Contains(u[1], ":") {
					t.Errorf("%s loads url(%s)", path, u[1])
				}
			}
		case path == apidoc.AssetsPath+"docs.js":
			if loc := absolute.FindIndex(got.Body); loc != nil {
				t.Errorf("%s names an absolute URL: %.80s", path, got.Body[loc[0]:])
			}
		case strings.HasSuffix(path, ".js"):
			// The vendored bundle names many URLs in strings it never loads
			// (schema ids, docs links); the CSP above is what keeps the page
			// on this origin. It carries no font or CDN host of its own.
			for _, host := range []string{"fonts.googleapis.com", "fonts.gstatic.com", "cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com"} {
				if strings.Contains(string(got.Body), host) {
					t.Errorf("%s names %s", path, host)
				}
			}
		}
	}
	if missing := env.Do(apptest.Request{Method: http.MethodGet, Path: apidoc.AssetsPath + "nope.js"}); missing.Status != http.StatusNotFound ||
		missing.JSON(t)["error"].(map[string]any)["code"] != "not_found" {
		t.Errorf("GET an unknown asset: %d %s", missing.Status, missing.Body)
	}
}

// checkCSPAllowsOnlySelf fails unless every directive allows at most 'self'
// and data:, script and style need no inline or eval, and the fallback is
// 'none'.
func checkCSPAllowsOnlySelf(t *testing.T, csp string) {
	t.Helper()
	if csp == "" {
		t.Fatal("no Content-Security-Policy")
	}
	directives := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		fields := strings.Fields(d)
		if len(fields) == 0 {
			continue
		}
		directives[fields[0]] = fields[1:]
		for _, source := range fields[1:] {
			if !slices.Contains([]string{"'self'", "'none'", "data:"}, source) {
				t.Errorf("CSP %s allows %s: %s", fields[0], source, csp)
			}
		}
	}
	if !slices.Equal(directives["default-src"], []string{"'none'"}) {
		t.Errorf("CSP default-src is %v, want 'none'", directives["default-src"])
	}
	for _, name := range []string{"script-src", "style-src", "connect-src"} {
		if !slices.Equal(directives[name], []string{"'self'"}) {
			t.Errorf("CSP %s is %v, want 'self' only", name, directives[name])
		}
	}
	if !slices.Equal(directives["frame-ancestors"], []string{"'none'"}) {
		t.Errorf("CSP frame-ancestors is %v, want 'none'", directives["frame-ancestors"])
	}
}

// The reference page is served outside /v1, like /healthz and /dashboard, so
// the route-drift test (TestOpenAPIDocumentHasEveryRoute) leaves it out.
func TestDocsRoutesAreOutsideTheDocumentedAPI(t *testing.T) {
	t.Parallel()
	_, app := startKeepingApp(t)
	prefix := loadDocument(t).Servers[0].URL
	routes := app.Routes()
	for _, want := range []server.Route{{Method: http.MethodGet, Path: "/docs"}, {Method: http.MethodGet, Path: "/docs/assets/{file}"}} {
		if !slices.Contains(routes, want) {
			t.Errorf("%s %s is not served: %v", want.Method, want.Path, routes)
		}
		if strings.HasPrefix(want.Path, prefix+"/") {
			t.Errorf("%s is under %s, where the drift test expects it documented", want.Path, prefix)
		}
	}
}
