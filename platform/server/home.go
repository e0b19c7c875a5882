package server

import (
	"html/template"
	"mime"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"shipd/platform/apidoc"
	"shipd/platform/httpapi"
)

// EntryFrontend is a Frontend with a page to start from (the dashboard's
// sign-in), which GET / points to.
type EntryFrontend interface {
	Frontend
	// Entry names the frontend, gives the path of its first page and says
	// in a few words what it is.
	Entry() (name, path, what string)
}

// homeLink is one place GET / points to.
type homeLink struct {
	Name, Path, What string
}

// addHome answers GET / with where to go, so that someone who opens the
// service's address (a browser, or curl) is not left with a bare 404: the
// API reference, the OpenAPI document, and the frontends this process
// serves (the dashboard only where every module runs, ADR 0033). A
// browser gets a page of links, anyone else the same as JSON.
func addHome(router *mux.Router, entries []homeLink, baseURL string) {
	links := []homeLink{
		{"docs", apidoc.PagePath, "the API reference (OpenAPI, readable)"},
		{"openapi", "/v1/openapi.json", "the OpenAPI 3.1 document"},
	}
	links = append(links, entries...)
	router.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		base := httpapi.BaseURL(r, baseURL)
		if prefersHTML(r) {
			h := w.Header()
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
			h.Set("X-Content-Type-Options", "nosniff")
			_ = homePage.Execute(w, links) // a failed write is the client gone
			return
		}
		answer := map[string]string{}
		for _, l := range links {
			answer[l.Name] = base + l.Path
		}
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{
			"message": "This is shipd. The API is under /v1; every request sends Authorization: Bearer <API key>. Its reference is at /docs.",
			"links":   answer,
		})
	}).Methods(http.MethodGet)
}

// prefersHTML reports whether the request's Accept asks for a page first,
// as a browser's does ("text/html,application/xhtml+xml,...").
func prefersHTML(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		t, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		return t == "text/html" || t == "application/xhtml+xml"
	}
	return false
}

var homePage = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>shipd</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>
</head><body>
<h1>shipd</h1>
<p>One JSON HTTP API under <code>/v1</code> in front of many parcel carriers. Every request sends
<code>Authorization: Bearer &lt;API key&gt;</code>.</p>
<ul>
{{range .}}<li><a href="{{.Path}}">{{.Path}}</a>: {{.What}}</li>
{{end}}</ul>
</body></html>
`))
