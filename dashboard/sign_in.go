package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"shipd/platform/auth"
	"shipd/platform/httpapi"
	"shipd/platform/ratelimit"
)

// The sign-in form's token is the server's: a random nonce, its expiry and
// an HMAC of both under a key derived from SECRET_KEY. It goes in a cookie
// and in the form, and both must carry the same valid token; a value an
// attacker plants in a cookie and a form (login CSRF) has no valid MAC.
const (
	signInTokenPurpose  = "dashboard sign-in form"
	signInTokenLifetime = 10 * time.Minute
)

func (d *Dashboard) newSignInToken() string {
	body := rand.Text() + "." + strconv.FormatInt(d.limiter.Now().Add(signInTokenLifetime).Unix(), 10)
	return body + "." + base64.RawURLEncoding.EncodeToString(d.box.MAC(signInTokenPurpose, []byte(body)))
}

// signInTokenValid reports whether token is one newSignInToken made and
// not yet expired.
func (d *Dashboard) signInTokenValid(token string) bool {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return false
	}
	body := token[:i]
	mac, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil || !d.box.MACMatches(signInTokenPurpose, []byte(body), mac) {
		return false
	}
	_, expiry, _ := strings.Cut(body, ".")
	unix, err := strconv.ParseInt(expiry, 10, 64)
	return err == nil && d.limiter.Now().Before(time.Unix(unix, 0))
}

func (d *Dashboard) signInPage(w http.ResponseWriter, r *http.Request) {
	d.renderSignIn(w, r, http.StatusOK, "", "")
}

// renderSignIn shows the form with a fresh form token in a cookie of its own.
func (d *Dashboard) renderSignIn(w http.ResponseWriter, r *http.Request, status int, problem, email string) {
	token := d.newSignInToken()
	http.SetCookie(w, d.cookie(r, signInCookie, token, int(signInTokenLifetime.Seconds())))
	d.render(w, status, "sign_in", view{Title: "Sign in", Problem: problem, CSRFToken: token, Email: email})
}

// normalEmail is the e-mail address as users are found by it (trimmed,
// lower case), so that "Jana@Example.com " is slowed as jana@example.com.
func normalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// signIn checks a password, slowed per (e-mail address, client address) by
// growing waits after failures and limited per client address (ADR 0046):
// an attacker elsewhere never delays the owner, and the owner's own address
// is delayed, never locked.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	form := r.PostFormValue("csrf_token")
	if c, err := r.Cookie(signInCookie); err != nil || c.Value != form || !d.signInTokenValid(form) {
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
	client := httpapi.ClientAddress(r)
	perClient, err := d.limiter.Take(r.Context(), "sign-in-client:"+client, ratelimit.SignInsPerClient)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if !perClient.Allowed {
		d.limiter.SetHeaders(w.Header(), perClient)
		d.renderSignIn(w, r, http.StatusTooManyRequests, "Too many sign-in attempts from your address. Please wait a minute and try again.", email)
		return
	}
	key := "sign-in:" + client + " " + normalEmail(email)
	failures := d.limiter.Failures()
	wait, err := failures.Wait(r.Context(), key)
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if wait > 0 {
		d.tooSoon(w, r, wait, email)
		return
	}
	user, err := d.users.CheckPassword(r.Context(), email, password)
	if errors.Is(err, auth.ErrWrongCredentials) {
		if _, err := failures.Fail(r.Context(), key, ratelimit.SignInBackoff); err != nil {
			d.failed(w, r, err)
			return
		}
		d.renderSignIn(w, r, http.StatusUnauthorized, "The e-mail address or the password is wrong.", email)
		return
	}
	if err != nil {
		d.failed(w, r, err)
		return
	}
	if err := failures.Forget(r.Context(), key); err != nil {
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

// tooSoon answers an attempt made before the wait its address's last
// failures earned: 429, Retry-After, and the password is not checked.
func (d *Dashboard) tooSoon(w http.ResponseWriter, r *http.Request, wait time.Duration, email string) {
	seconds := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(seconds))
	d.renderSignIn(w, r, http.StatusTooManyRequests,
		"Too many wrong passwords. Please wait "+strconv.Itoa(seconds)+" seconds and try again.", email)
}
