package carrierhttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/oauth2"

	"shipd/platform/carrier"
	"shipd/platform/txguard"
)

// Tokens keeps one OAuth2 token per key (the credentials and the host they
// are for, see Key) until shortly before it expires, so a carrier's login
// is asked once per token lifetime, not once per call: PPL allows 12 tokens
// a minute. Callers of one key wait for a single fetch. The zero value is
// ready to use.
type Tokens struct {
	mu    sync.Mutex
	byKey map[string]*tokenSlot
}

type tokenSlot struct {
	mu  sync.Mutex // held while fetching
	tok *oauth2.Token
}

// Key identifies a set of credentials without keeping them readable.
func Key(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:])
}

// Get returns the cached token of key while it is valid (oauth2's margin:
// 10 s before expiry), else fetches, caches and returns a new one. A fetch
// inside an open database transaction is refused (txguard, ADR 0001), on
// any client.
func (t *Tokens) Get(ctx context.Context, key string, fetch func(context.Context) (*oauth2.Token, error)) (*oauth2.Token, error) {
	t.mu.Lock()
	if t.byKey == nil {
		t.byKey = map[string]*tokenSlot{}
	}
	slot := t.byKey[key]
	if slot == nil {
		slot = &tokenSlot{}
		t.byKey[key] = slot
	}
	t.mu.Unlock()

	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.tok.Valid() {
		return slot.tok, nil
	}
	if err := txguard.Check(ctx, "carrier token request"); err != nil {
		return nil, err
	}
	tok, err := fetch(ctx)
	if err != nil {
		return nil, err
	}
	slot.tok = tok
	return tok, nil
}

// Put caches tok under key, for a token fetched under another key: an
// OAuth server that rotates refresh tokens names the credentials anew with
// each refresh, and the next call asks under the new name.
func (t *Tokens) Put(key string, tok *oauth2.Token) {
	t.mu.Lock()
	if t.byKey == nil {
		t.byKey = map[string]*tokenSlot{}
	}
	slot := t.byKey[key]
	if slot == nil {
		slot = &tokenSlot{}
		t.byKey[key] = slot
	}
	t.mu.Unlock()
	slot.mu.Lock()
	slot.tok = tok
	slot.mu.Unlock()
}

// Forget drops tok from key's slot, when the carrier refused it before its
// expiry (revoked, or expired early): the next Get fetches a new one.
func (t *Tokens) Forget(key string, tok *oauth2.Token) {
	t.mu.Lock()
	slot := t.byKey[key]
	t.mu.Unlock()
	if slot == nil {
		return
	}
	slot.mu.Lock()
	if slot.tok == tok {
		slot.tok = nil
	}
	slot.mu.Unlock()
}

// WithClient makes oauth2's token requests go through client.
func WithClient(ctx context.Context, client *http.Client) context.Context {
	if client == nil {
		client = DefaultClient
	}
	return context.WithValue(ctx, oauth2.HTTPClient, client)
}

// TokenError sorts a failed token request: the login refusing the
// credentials (4xx) is a *carrier.Rejection blaming field; no answer, 429
// and 5xx are unavailable.
func TokenError(err error, field string) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		code := re.Response.StatusCode
		if code == http.StatusTooManyRequests || code >= 500 {
			return Unavailable("token request: HTTP %d", code)
		}
		msg := "the carrier refused the credentials"
		switch {
		case re.ErrorCode != "" && re.ErrorDescription != "":
			msg += " (" + re.ErrorCode + ": " + re.ErrorDescription + ")"
		case re.ErrorCode != "":
			msg += " (" + re.ErrorCode + ")"
		default:
			msg += " (HTTP " + http.StatusText(code) + ")"
		}
		return &carrier.Rejection{Field: field, Message: msg}
	}
	return Unavailable("token request: %v", err)
}
