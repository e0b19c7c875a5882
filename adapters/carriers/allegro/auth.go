package allegro

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"golang.org/x/oauth2"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// refreshTokens keeps, per channel credentials (a tokenKey), the newest
// refresh token Allegro issued: Allegro rotates them (AssumedRefreshRotation)
// and the channel's stored settings cannot be rewritten from here.
type refreshTokens struct {
	mu    sync.Mutex
	byKey map[string]string
}

func (r *refreshTokens) get(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byKey[key]
}

func (r *refreshTokens) set(key, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = map[string]string{}
	}
	r.byKey[key] = token
}

// tokenKey names a channel's credentials at the token host of its mode.
func (c *Carrier) tokenKey(s carrier.Settings) string {
	return carrierhttp.Key(c.authHost(s), s.String(settingClientID), s.String(settingClientSecret), s.String(settingRefreshToken))
}

// token returns the channel's cached access token, or refreshes one.
func (c *Carrier) token(ctx context.Context, s carrier.Settings) (*oauth2.Token, error) {
	key := c.tokenKey(s)
	return c.tokens.Get(ctx, key, func(ctx context.Context) (*oauth2.Token, error) {
		stored := s.String(settingRefreshToken)
		newest := c.rotated.get(key)
		if newest == "" {
			newest = stored
		}
		tok, err := c.refresh(ctx, s, newest)
		if err != nil && newest != stored && refused(err) {
			// Another process may have rotated past ours and Allegro
			// retired it; the stored token is the one left to try.
			tok, err = c.refresh(ctx, s, stored)
		}
		if err != nil {
			return nil, tokenError(err)
		}
		if tok.RefreshToken != "" {
			c.rotated.set(key, tok.RefreshToken)
		}
		return tok, nil
	})
}

// refresh exchanges refreshToken for an access token (grant_type
// refresh_token, the app's id and secret in HTTP Basic).
func (c *Carrier) refresh(ctx context.Context, s carrier.Settings, refreshToken string) (*oauth2.Token, error) {
	conf := oauth2.Config{
		ClientID:     s.String(settingClientID),
		ClientSecret: s.String(settingClientSecret),
		Endpoint:     oauth2.Endpoint{TokenURL: c.authHost(s) + tokenPath, AuthStyle: oauth2.AuthStyleInHeader},
	}
	return conf.TokenSource(carrierhttp.WithClient(ctx, c.cfg.HTTPClient), &oauth2.Token{RefreshToken: refreshToken}).Token()
}

// refused reports whether the token endpoint said no (rather than nothing).
func refused(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 && re.Response.StatusCode != http.StatusTooManyRequests
}

// tokenError sorts a failed refresh: a refused grant blames the refresh
// token (expired, revoked or rotated away: the merchant authorizes again),
// any other refusal the app's secret.
func tokenError(err error) error {
	field := settingClientSecret
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		field = settingRefreshToken
	}
	return carrierhttp.TokenError(err, field)
}

// request is one call of the REST API.
type request struct {
	method, url string
	body        []byte // JSON, sent as Allegro's media type; nil for none
	accept      string // "" = Allegro's media type
}

// call sends r with the channel's bearer token and Allegro's media type. A
// 401 to a cached token drops it, refreshes and tries once more; a second
// 401 is a Rejection blaming the refresh token.
func (c *Carrier) call(ctx context.Context, s carrier.Settings, r request) (*carrierhttp.Response, error) {
	for attempt := 0; ; attempt++ {
		tok, err := c.token(ctx, s)
		if err != nil {
			return nil, err
		}
		var body io.Reader
		if r.body != nil {
			body = bytes.NewReader(r.body)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		accept := r.accept
		if accept == "" {
			accept = mediaType
		}
		req.Header.Set("Accept", accept)
		if r.body != nil {
			req.Header.Set("Content-Type", mediaType)
		}
		res, err := carrierhttp.Do(c.cfg.HTTPClient, req)
		if err != nil {
			return nil, err
		}
		if res.Status != http.StatusUnauthorized {
			return res, nil
		}
		c.tokens.Forget(c.tokenKey(s), tok)
		if attempt > 0 {
			return nil, carrier.Reject(settingRefreshToken, "Allegro refused the access token: %s", authMessage(res.Body))
		}
	}
}
