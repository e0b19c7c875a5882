// Package dashboard is the browser side of shipd: server-rendered pages
// (html/template, no JavaScript) where an account's users sign in. Sessions
// and users live in platform/auth (ADR 0024).
//
// It is a driving adapter, not infrastructure, so it sits outside platform/:
// the composition root hands it to the server as a server.Frontend, and it
// reaches the modules only through their /v1 API (ADR 0027).
package dashboard

import (
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"

	"github.com/gorilla/mux"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
	"shipd/platform/ratelimit"
	"shipd/platform/secrets"
)

//go:embed templates/*.html
var templateFiles embed.FS

// Cookie names: the session, and the sign-in form's own token (a form
// posted from another site has neither, so it cannot sign anyone in; one
// planted in a cookie is not the server's, so it cannot either: sign_in.go).
const (
	sessionCookie = "shipd_session"
	signInCookie  = "shipd_sign_in"
)

// Dashboard serves /dashboard.
type Dashboard struct {
	users   *auth.Store
	limiter *ratelimit.Limiter
	box     *secrets.Box // signs the sign-in form's token
	api     http.Handler // the /v1 API, called in process (api.go)
	pages   map[string]*template.Template
}

// New returns the dashboard; Register gives it the API it calls.
func New(users *auth.Store, limiter *ratelimit.Limiter, box *secrets.Box) *Dashboard {
	d := &Dashboard{users: users, limiter: limiter, box: box, pages: map[string]*template.Template{}}
	files, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		page := strings.TrimSuffix(path.Base(f), ".html")
		if page == "layout" || page == "partials" {
			continue
		}
		d.pages[page] = template.Must(template.New(page).Funcs(templateFuncs).ParseFS(templateFiles,
			"templates/layout.html", "templates/partials.html", f))
	}
	return d
}

// Register adds the dashboard's routes to r. api serves /v1 (the service's
// router): the pages read and change resources through it, as the
// signed-in account. Call it once, before serving.
func (d *Dashboard) Register(r *mux.Router, api http.Handler) {
	d.api = api
	r.HandleFunc("/dashboard/sign-in", d.signInPage).Methods(http.MethodGet)
	r.HandleFunc("/dashboard/sign-in", d.signIn).Methods(http.MethodPost)
	r.Handle("/dashboard/sign-out", d.signedIn(d.signOut)).Methods(http.MethodPost)
	r.Handle("/dashboard", d.signedIn(d.home)).Methods(http.MethodGet)
	d.registerKeys(r)
	d.registerChannels(r)
	d.registerShipments(r)
	d.registerDispatch(r)
	d.registerWebhooks(r)
}

// Entry is where the service's home page (GET /) sends a browser: the
// dashboard, which asks to sign in first.
func (d *Dashboard) Entry() (name, path, what string) {
	return "dashboard", "/dashboard", "the dashboard, for a user made by shipd users create"
}

// view is what every page template gets.
type view struct {
	Title     string
	Nav       string // the menu entry to mark: "keys", "channels", ...
	Session   *auth.Session
	Problem   string
	Fields    []string // "field: reason" lines under Problem
	Notice    string   // what the last action did
	CSRFToken string   // the sign-in form's token
	Email     string
	Data      any // the page's own
}

func (d *Dashboard) render(w http.ResponseWriter, status int, page string, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	if err := d.pages[page].ExecuteTemplate(w, "layout", v); err != nil {
		slog.Error("rendering dashboard page", "page", page, "err", err)
	}
}

func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request, s auth.Session) {
	c, _ := r.Cookie(sessionCookie)
	if err := d.users.EndSession(r.Context(), c.Value); err != nil {
		d.failed(w, r, err)
		return
	}
	http.SetCookie(w, d.cookie(r, sessionCookie, "", -1))
	http.Redirect(w, r, "/dashboard/sign-in", http.StatusSeeOther)
}

func (d *Dashboard) home(w http.ResponseWriter, r *http.Request, s auth.Session) {
	d.render(w, http.StatusOK, "home", view{Title: "Account", Nav: "home", Session: &s})
}

// signedIn runs page for a signed-in user; anyone else is sent to sign in.
// Every POST must carry the session's form token (CSRF).
func (d *Dashboard) signedIn(page func(http.ResponseWriter, *http.Request, auth.Session)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(sessionCookie)
		var s auth.Session
		if err == nil {
			s, err = d.users.SessionOf(r.Context(), c.Value)
		}
		if errors.Is(err, http.ErrNoCookie) || errors.Is(err, auth.ErrNoSession) {
			http.Redirect(w, r, "/dashboard/sign-in", http.StatusSeeOther)
			return
		}
		if err != nil {
			d.failed(w, r, err)
			return
		}
		// A page is one request of the account, limited as its API calls
		// are (which then are not counted again).
		decision, err := d.limiter.Take(r.Context(), s.Principal().AccountID, s.Principal().RateLimit)
		if err != nil {
			d.failed(w, r, err)
			return
		}
		d.limiter.SetHeaders(w.Header(), decision)
		if !decision.Allowed {
			d.render(w, http.StatusTooManyRequests, "home", view{Title: "Too many requests", Session: &s,
				Problem: "Your account made more requests this minute than its plan allows. Please wait a minute and try again."})
			return
		}
		r = r.WithContext(ratelimit.Counted(r.Context()))
		if r.Method == http.MethodPost && !s.CSRFMatches(r.PostFormValue("csrf_token")) {
			d.render(w, http.StatusForbidden, "home", view{Title: "Forbidden", Session: &s,
				Problem: "The form expired or came from elsewhere; nothing was changed. Please try again."})
			return
		}
		page(w, r, s)
	})
}

// cookie is HttpOnly and SameSite=Lax always, Secure when the client spoke
// HTTPS (to shipd or a trusted proxy) or PUBLIC_BASE_URL is https (ADR 0045);
// a plain-HTTP local run would otherwise never get its cookie back.
func (d *Dashboard) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/dashboard", MaxAge: maxAge, HttpOnly: true,
		Secure: httpapi.SecureCookies(r), SameSite: http.SameSiteLaxMode}
}
