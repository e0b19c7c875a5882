package apidoc_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"shipd/platform/apidoc"
)

func serve(h http.Handler, target string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestPageIsHTMLWithTheSecurityHeaders(t *testing.T) {
	rec := serve(apidoc.PageHandler(), apidoc.PagePath, nil)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("answer %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if got := rec.Header().Get("Content-Security-Policy"); got != apidoc.ContentSecurityPolicy {
		t.Errorf("CSP %q", got)
	}
	if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
	for _, name := range apidoc.AssetNames() {
		if name != "favicon-32x32.png" && !strings.Contains(rec.Body.String(), apidoc.AssetURL(name)) {
			t.Errorf("the page does not load %s", apidoc.AssetURL(name))
		}
	}
	if !strings.Contains(rec.Body.String(), `data-spec-url="/v1/openapi.json"`) {
		t.Error("the page does not point Swagger UI at /v1/openapi.json")
	}
}

func TestAssetsAreServedWithTypeCacheAndGzip(t *testing.T) {
	h := apidoc.AssetHandler()
	wantType := map[string]string{
		"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
		"docs.js":              "text/javascript; charset=utf-8",
		"swagger-ui.css":       "text/css; charset=utf-8",
		"favicon-32x32.png":    "image/png",
	}
	if len(apidoc.AssetNames()) != len(wantType) {
		t.Errorf("assets %v", apidoc.AssetNames())
	}
	for name, typ := range wantType {
		url := apidoc.AssetURL(name)
		rec := serve(h, url, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != typ || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d %q, %d bytes", url, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
			continue
		}
		if got := rec.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", url, got)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", url)
		}
		// Without the current hash, a short cache only.
		if got := serve(h, apidoc.AssetsPath+name+"?v=old", nil).Header().Get("Cache-Control"); got != "public, max-age=300" {
			t.Errorf("GET %s?v=old: Cache-Control %q", name, got)
		}
		etag := rec.Header().Get("ETag")
		if again := serve(h, url, map[string]string{"If-None-Match": etag}); etag == "" || again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("GET %s with If-None-Match %q: %d", url, etag, again.Code)
		}
		gz := serve(h, url, map[string]string{"Accept-Encoding": "br, gzip"})
		if !strings.HasPrefix(typ, "text/") {
			if gz.Header().Get("Content-Encoding") != "" {
				t.Errorf("GET %s: %s compressed", url, typ)
			}
			continue
		}
		if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("GET %s accepting gzip: Content-Encoding %q, Vary %q", url, gz.Header().Get("Content-Encoding"), gz.Header().Get("Vary"))
			continue
		}
		zr, err := gzip.NewReader(gz.Body)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(plain, rec.Body.Bytes()) {
			t.Errorf("GET %s: the gzip body is not the file (%v)", url, err)
		}
		if refused := serve(h, url, map[string]string{"Accept-Encoding": "gzip;q=0"}); refused.Header().Get("Content-Encoding") != "" {
			t.Errorf("GET %s: gzip sent although refused", url)
		}
	}
	for _, path := range []string{apidoc.AssetsPath + "LICENSE", apidoc.AssetsPath + "nope.js", "/elsewhere/docs.js"} {
		if rec := serve(h, path, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
}

// The initializer is ours: it must not let the address bar choose another
// document, nor ask the online validator.
func TestInitializerKeepsThePageOnThisDocument(t *testing.T) {
	js := serve(apidoc.AssetHandler(), apidoc.AssetURL("docs.js"), nil).Body.String()
	for _, want := range []string{"queryConfigEnabled: false", "validatorUrl: null", `layout: "BaseLayout"`} {
		if !strings.Contains(js, want) {
			t.Errorf("docs.js lacks %s", want)
		}
	}
}
