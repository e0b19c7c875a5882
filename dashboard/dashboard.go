// Package dashboard is the browser side of shipd: server-rendered pages
// (html/template, no JavaScript) where an account's users sign in. Sessions
// and users live in platform/auth (ADR 0024).
//
// It is a driving adapter, not infrastructure, so it sits outside platform/:
// the composition root hands it to the server as a server.Frontend, and it
// reaches the modules only through their /v1 API (ADR 0027).
package dashboard

import (
	"crypto/rand"
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
)

//go:embed templates/*.html
var templateFiles embed.FS

// Cookie names: the session, and the sign-in form's own token (a form
// posted from another site has neither, so it cannot sign anyone in).
const (
	sessionCookie = "shipd_session"
	signInCookie  = "shipd_sign_in"
)

// Sign-in attempts allowed per minute for one address and for one client
// address, whatever the outcome: enough for typos, too few to guess.
const (
	attemptsPerAddress = 5
	attemptsPerClient  = 20
)

// Dashboard serves /dashboard.
type Dashboard struct {
	users   *auth.Store
	limiter *ratelimit.Limiter
	api     http.Handler // the /v1 API, called in process (api.go)
	pages   map[string]*template.Template
}

// New returns the dashboard; Register gives it the API it calls.
func New(users *auth.Store, limiter *ratelimit.Limiter) *Dashboard {
	d := &Dashboard{users: users, limiter: limiter, pages: map[string]*template.Template{}}
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

func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	d.renderSignIn(w, r, http.StatusOK, "", "")
}

// renderSignIn shows the form with a fresh form token in a cookie of its own.
func (d *Dashboard) renderSignIn(w http.ResponseWriter, r *http.Request, status int, problem, email string) {
	token := rand.Text()
	http.SetCookie(w, d.cookie(r, signInCookie, token, 600))
	d.render(w, status, "sign_in", view{Title: "Sign in", Problem: problem, CSRFToken: token, Email: email})
}

func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	if c, err := r.Cookie(signInCookie); err != nil || c.Value == "" || c.Value != r.PostFormValue("csrf_token") {
		d.renderSignIn(w, r, http.StatusForbidden, "The form expired or came from elsewhere. Please sign in again.", email)
		return
	}
	password := r.PostFormValue("password")
	if len(email) > 254 || len(password) > 4*auth.MaxPasswordLength || !httpapi.StorableText(email) || !httpapi.StorableText(password) {
		// No user has such an address or password, and PostgreSQL could not
		// even be asked about them (NUL, bytes that are not UTF-8).
		d.renderSignIn(w, r, http.StatusUnauthorized, "The e-mail address or the password is wrong.", "")
		return
	}
	for _, limit := range []struct {
		key string
		n   int
	}{{"sign-in:" + strings.ToLower(email), attemptsPerAddress}, {"sign-in-client:" + clientAddress(r), attemptsPerClient}} {
		decision, err := d.limiter.Take(r.Context(), limit.key, limit.n)
		if err != nil {
			d.failed(w, r, err)
			return
		}
		if !decision.Allowed {
			d.renderSignIn(w, r, http.StatusTooManyRequests, "Too many sign-in attempts. Please wait a minute and try again.", email)
			return
		}
	}
	user, err := d.users.CheckPassword(r.Context(), email, password)
	if errors.Is(err, auth.ErrWrongCredentials) {
		d.renderSignIn(w, r, http.StatusUnauthorized, "The e-mail address or the password is wrong.", email)
		return
	}
	if err != nil {
		d.failed(w, r, err)
		return
	}
	token, _, err := d.users.StartSession(r.Context(), user)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	http.SetCookie(w, d.cookie(r, signInCookie, "", -1))
	http.SetCookie(w, d.cookie(r, sessionCookie, token, int(auth.SessionLifetime.Seconds())))
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
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

// clientAddress is the client's IP address, behind trusted proxies too
// (httpapi.RequestOrigin).
func clientAddress(r *http.Request) string { return httpapi.ClientAddress(r) }
