// Package apidoc holds the OpenAPI 3.1 document of the /v1 API and serves
// it at GET /v1/openapi.json, without an API key.
package apidoc

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.json
var document []byte

// Document is the OpenAPI 3.1 document, as JSON. Callers must not change it.
func Document() []byte { return document }

// Handler answers the document with Content-Type application/json.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(document)
	})
}
