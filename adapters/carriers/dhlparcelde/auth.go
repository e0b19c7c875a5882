package dhlparcelde

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"golang.org/x/oauth2"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// tokenKey names the cached token of a host and every credential.
func (c *Carrier) tokenKey(s carrier.Settings) string {
	return carrierhttp.Key(c.apiHost(s), s.String("clientId"), s.String("clientSecret"), s.String("username"), s.String("password"))
}

// token returns the cached OAuth2 token of the channel, or logs in (ROPC).
func (c *Carrier) token(ctx context.Context, s carrier.Settings) (*oauth2.Token, error) {
	return c.tokens.Get(ctx, c.tokenKey(s), func(ctx context.Context) (*oauth2.Token, error) {
		conf := oauth2.Config{
			ClientID:     s.String("clientId"),
			ClientSecret: s.String("clientSecret"),
			Endpoint:     oauth2.Endpoint{TokenURL: c.apiHost(s) + tokenPath, AuthStyle: oauth2.AuthStyleInParams},
		}
		tok, err := conf.PasswordCredentialsToken(carrierhttp.WithClient(ctx, c.cfg.HTTPClient), s.String("username"), s.String("password"))
		if err != nil {
			return nil, tokenError(err)
		}
		return tok, nil
	})
}

// tokenError sorts a failed login, blaming the GKP password for a refused
// grant and the app secret for anything else the login refuses.
func tokenError(err error) error {
	field := "clientSecret"
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == AssumedTokenErrorGrant {
		field = "password"
	}
	return carrierhttp.TokenError(err, field)
}

// call sends one authenticated request built by build (called again for
// the retry, so a body can be re-read). A 401 to a cached token drops it,
// fetches a new one and tries once more; a second 401 is a Rejection.
func (c *Carrier) call(ctx context.Context, s carrier.Settings, build func() (*http.Request, error)) (*carrierhttp.Response, error) {
	for attempt := 0; ; attempt++ {
		tok, err := c.token(ctx, s)
		if err != nil {
			return nil, err
		}
		req, err := build()
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		if AssumedAPIKeyWithBearer {
			req.Header.Set("dhl-api-key", s.String("clientId"))
		}
		req.Header.Set("Accept", "application/json")
		res, err := carrierhttp.Do(c.cfg.HTTPClient, req)
		if err != nil {
			return nil, err
		}
		if res.Status != http.StatusUnauthorized {
			return res, nil
		}
		c.tokens.Forget(c.tokenKey(s), tok)
		if attempt > 0 {
			return nil, &carrier.Rejection{Field: "clientId", Message: "DHL refused the access token: " + statusMessage(res)}
		}
	}
}

// newRequest builds a request bound to ctx with a JSON body when body is non-nil.
func newRequest(ctx context.Context, method, url string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}
