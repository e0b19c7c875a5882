package apidoc

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"shipd/platform/httpapi"
)

// The API reference page (GET /docs) renders the document with Swagger UI,
// vendored under assets/ (version and update steps in assets/README.md and
// ADR 0026). Everything the page loads comes from this service: the HTML,
// the files below and /v1/openapi.json.

// PagePath and AssetsPath are where the server mounts PageHandler and
// AssetHandler; AssetsPath ends with a slash and is followed by a file name.
const (
	PagePath   = "/docs"
	AssetsPath = "/docs/assets/"
	specURL    = "/v1/openapi.json"
)

// ContentSecurityPolicy is sent with the page and its files: only this
// origin, no inline or eval'd script, no inline style. Swagger UI needs
// nothing more (checked in headless Chromium, ADR 0026): its stylesheet's
// icons are data: images, and "Try it out" calls /v1 on this origin.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed assets/swagger-ui-bundle.js assets/swagger-ui.css assets/docs.js assets/favicon-32x32.png
var assetFiles embed.FS

type asset struct {
	contentType string
	body        []byte
	hash        string // hex sha256, first 16 characters: the ETag and the ?v= of the page's links
	gzipped     func() []byte
}

// assets are the files served under AssetsPath, by name. They are read,
// hashed and copied at the first use, not at start: the bundle is 1.7 MB that
// an instance nobody reads the reference of need not hold.
var assets = sync.OnceValue(func() map[string]*asset {
	types := map[string]string{
		"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
		"docs.js":              "text/javascript; charset=utf-8",
		"swagger-ui.css":       "text/css; charset=utf-8",
		"favicon-32x32.png":    "image/png",
	}
	out := map[string]*asset{}
	for name, contentType := range types {
		body, err := assetFiles.ReadFile("assets/" + name)
		if err != nil {
			panic(err) // the embed directive above names every file
		}
		sum := sha256.Sum256(body)
		a := &asset{contentType: contentType, body: body, hash: hex.EncodeToString(sum[:])[:16]}
		a.gzipped = sync.OnceValue(func() []byte {
			if !strings.HasPrefix(contentType, "text/") {
				return nil
			}
			var buf bytes.Buffer
			// Into memory, at a valid level: nothing here can fail.
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = zw.Write(body)
			_ = zw.Close()
			return buf.Bytes()
		})
		out[name] = a
	}
	return out
})

// AssetURL is the same-origin address the page uses for an asset, with its
// content hash so a new version is fetched anew despite the long cache.
func AssetURL(name string) string { return AssetsPath + name + "?v=" + assets()[name].hash }

// AssetNames lists the files served under AssetsPath.
func AssetNames() []string {
	names := make([]string, 0, len(assets()))
	for name := range assets() {
		names = append(names, name)
	}
	return names
}

var page = sync.OnceValue(func() []byte {
	return []byte(fmt.Sprintf(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>shipd API reference</title>
<link rel="icon" type="image/png" href="%s">
<link rel="stylesheet" href="%s">
</head>
<body>
<noscript><p>The API reference needs JavaScript. The OpenAPI document itself is at <a href="%s">%s</a>.</p></noscript>
<div id="swagger-ui" data-spec-url="%s"></div>
<script src="%s"></script>
<script src="%s"></script>
</body>
</html>
`, html.EscapeString(AssetURL("favicon-32x32.png")), html.EscapeString(AssetURL("swagger-ui.css")),
		specURL, specURL, specURL,
		html.EscapeString(AssetURL("swagger-ui-bundle.js")), html.EscapeString(AssetURL("docs.js"))))
})

func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// PageHandler answers the HTML page of the API reference, without an API key.
func PageHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		securityHeaders(w.Header())
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(page())
	})
}

// AssetHandler answers the page's files: GET AssetsPath + name, and 404 in
// the error shape for any other name. A request that names the current ?v=
// hash may be cached for a year; gzip is used when the client accepts it.
func AssetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets()[path.Base(r.URL.Path)]
		if !ok || path.Dir(r.URL.Path)+"/" != AssetsPath {
			httpapi.WriteErrorBody(w, r, http.StatusNotFound, "not_found", "The requested resource does not exist.", nil)
			return
		}
		h := w.Header()
		securityHeaders(h)
		h.Set("Content-Type", a.contentType)
		h.Set("Vary", "Accept-Encoding")
		etag := `W/"` + a.hash + `"` // weak: the gzip and identity bodies differ
		h.Set("ETag", etag)
		if r.URL.Query().Get("v") == a.hash {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "public, max-age=300")
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := a.body
		if gz := a.gzipped(); gz != nil && acceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			body = gz
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if weight, err := strconv.ParseFloat(q, 64); !found || err != nil || weight > 0 {
			return true
		}
	}
	return false
}
