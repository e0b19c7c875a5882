package allegro

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// rotations is this process's memory of Allegro's rotations: each refresh
// token it used, mapped to the one Allegro answered in its place. It is a
// cache only: the channel's keeper (carrier.CredentialKeeper) stores every
// new token for all processes; the memory lets a call made with settings
// read before the renewal find the newest token and its access token.
type rotations struct {
	mu   sync.Mutex
	next map[string]rotation // by rotationKey of the token used
}

type rotation struct {
	token string
	at    time.Time
}

// rotationMemory is how long a rotation is remembered: far longer than
// settings in hand can be older than the store (one call's time).
const rotationMemory = 24 * time.Hour

// maxChain bounds a walk along the remembered rotations.
const maxChain = 64

// follow walks from token along the rotations this process made: the
// newest token it knows of, and the retired ones before it, token first.
func (r *rotations) follow(c *Carrier, s carrier.Settings, token string) (newest string, retired []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	newest = token
	for range maxChain {
		next, ok := r.next[c.rotationKey(s, newest)]
		if !ok {
			break
		}
		retired = append(retired, newest)
		newest = next.token
	}
	return newest, retired
}

// rotated remembers that using token got renewed in its place.
func (r *rotations) rotated(c *Carrier, s carrier.Settings, token, renewed string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.next == nil {
		r.next = map[string]rotation{}
	}
	for k, v := range r.next {
		if now.Sub(v.at) > rotationMemory {
			delete(r.next, k)
		}
	}
	r.next[c.rotationKey(s, token)] = rotation{token: renewed, at: now}
}

// rotationKey names a refresh token of a channel's app at the token host
// of its mode, without keeping it readable.
func (c *Carrier) rotationKey(s carrier.Settings, refreshToken string) string {
	return carrierhttp.Key(c.authHost(s), s.String(settingClientID), refreshToken)
}

// tokenKey names a channel's credentials, with the refresh token they
// are refreshed by now, at the token host of its mode.
func (c *Carrier) tokenKey(s carrier.Settings, refreshToken string) string {
	return carrierhttp.Key(c.authHost(s), s.String(settingClientID), s.String(settingClientSecret), refreshToken)
}

// token returns the channel's cached access token, or refreshes one. The
// cache is asked under the newest refresh token this process knows the
// stored one was rotated to (AssumedRefreshRotation).
func (c *Carrier) token(ctx context.Context, s carrier.Settings) (*oauth2.Token, error) {
	newest, _ := c.rotated.follow(c, s, s.String(settingRefreshToken))
	return c.tokens.Get(ctx, c.tokenKey(s, newest), func(ctx context.Context) (*oauth2.Token, error) {
		return c.renew(ctx, s)
	})
}

// renew refreshes with the newest refresh token known and keeps the one
// Allegro answers in its place (ADR 0042):
//   - through the channel's keeper, for every process, over the tokens it
//     knows Allegro retired (a compare-and-swap: a token the merchant
//     pasted meanwhile is kept), and in this process's memory;
//   - a token refused as invalid_grant may have been used by another
//     process, which is storing its successor: the stored token is read
//     again until it is one not yet tried (for RenewalWait at most) and
//     used instead. A token no one renewed stays refused: the merchant
//     authorizes again.
//
// Without a keeper (a caller that is no channel) the newest token lives
// in this process's memory only.
func (c *Carrier) renew(ctx context.Context, s carrier.Settings) (*oauth2.Token, error) {
	keeper := s.Keeper()
	used, retired := c.rotated.follow(c, s, s.String(settingRefreshToken))
	tok, err := c.refresh(ctx, s, used)
	deadline := time.Now().Add(c.renewalWait())
	for keeper != nil && invalidGrant(err) {
		retired = appendNew(retired, used)
		next, found, serr := c.awaitStored(ctx, keeper, retired, deadline)
		if serr != nil {
			return nil, carrierhttp.Unavailable("reading the channel's stored refresh token: %v", serr)
		}
		if !found {
			break
		}
		used = next
		tok, err = c.refresh(ctx, s, used)
	}
	if err != nil {
		return nil, tokenError(err)
	}
	if tok.RefreshToken == "" || tok.RefreshToken == used {
		return tok, nil
	}
	// Cached under the new token's name before the rotation is remembered,
	// so no caller that follows it refreshes again while this one is valid.
	c.tokens.Put(c.tokenKey(s, tok.RefreshToken), tok)
	c.rotated.rotated(c, s, used, tok.RefreshToken)
	if keeper != nil {
		if err := keeper.Renew(ctx, settingRefreshToken, appendNew(retired, used), tok.RefreshToken); err != nil {
			// The access token is good and the new refresh token in this
			// process's memory; its next refresh stores the newer one over
			// the same retired tokens.
			slog.WarnContext(ctx, "allegro: the rotated refresh token could not be stored; this process keeps it until its next refresh", "err", err)
		}
	}
	return tok, nil
}

// awaitStored reads the channel's stored refresh token until it is none of
// tried, or deadline passes (found false).
func (c *Carrier) awaitStored(ctx context.Context, keeper carrier.CredentialKeeper, tried []string, deadline time.Time) (string, bool, error) {
	pause := 25 * time.Millisecond
	for {
		stored, err := keeper.Stored(ctx, settingRefreshToken)
		if err != nil {
			return "", false, err
		}
		if stored != "" && !slices.Contains(tried, stored) {
			return stored, true, nil
		}
		if time.Now().Add(pause).After(deadline) {
			return "", false, nil
		}
		select {
		case <-ctx.Done():
			return "", false, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 400*time.Millisecond)
	}
}

// renewalWait is how long a refused refresh token waits for another
// process to store its successor.
func (c *Carrier) renewalWait() time.Duration {
	if c.cfg.RenewalWait > 0 {
		return c.cfg.RenewalWait
	}
	return DefaultRenewalWait
}

func appendNew(tokens []string, token string) []string {
	if slices.Contains(tokens, token) {
		return tokens
	}
	return append(tokens, token)
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

// invalidGrant reports whether the token endpoint refused the refresh
// token itself (expired, revoked, or used already).
func invalidGrant(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "invalid_grant"
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
		newest, _ := c.rotated.follow(c, s, s.String(settingRefreshToken))
		c.tokens.Forget(c.tokenKey(s, newest), tok)
		if attempt > 0 {
			return nil, carrier.Reject(settingRefreshToken, "Allegro refused the access token: %s", authMessage(res.Body))
		}
	}
}
