package ppl

import (
	"bytes"
	"context"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// tokenKey names the cached token of one host and set of credentials.
func tokenKey(base string, s carrier.Settings) string {
	return carrierhttp.Key(base, s.String("clientId"), s.String("clientSecret"))
}

// token returns the cached token for base and the settings' credentials, or
// fetches one (grant_type=client_credentials, form-urlencoded, credentials
// in the body as PPL documents).
// fresh reports whether this call fetched it (rather than the cache).
func (c *Carrier) token(ctx context.Context, base string, s carrier.Settings) (tok *oauth2.Token, fresh bool, err error) {
	tok, err = c.tokens.Get(ctx, tokenKey(base, s), func(ctx context.Context) (*oauth2.Token, error) {
		fresh = true
		cc := clientcredentials.Config{
			ClientID:     s.String("clientId"),
			ClientSecret: s.String("clientSecret"),
			TokenURL:     base + "/login/getAccessToken",
			Scopes:       []string{tokenScope},
			AuthStyle:    oauth2.AuthStyleInParams,
		}
		tok, err := cc.Token(carrierhttp.WithClient(ctx, c.cfg.HTTPClient))
		if err != nil {
			return nil, carrierhttp.TokenError(err, "clientSecret")
		}
		return tok, nil
	})
	return tok, fresh, err
}

// call is one authenticated request to PPL.
type call struct {
	method, url string
	body        []byte // JSON; nil for none
	accept      string // "" = application/json
}

// do sends the call with the Bearer token. A 401 with a cached token means
// PPL dropped it before its expiry: the token is forgotten, a new one
// fetched and the call sent once more. A 401 with a new token is PPL
// refusing the credentials.
func (c *Carrier) do(ctx context.Context, s carrier.Settings, cl call) (*carrierhttp.Response, error) {
	base := c.base(s)
	for attempt := 0; ; attempt++ {
		tok, fresh, err := c.token(ctx, base, s)
		if err != nil {
			return nil, err
		}
		res, err := c.send(ctx, tok, cl)
		if err != nil {
			return nil, err
		}
		if res.Status == http.StatusUnauthorized && attempt == 0 && !fresh {
			c.tokens.Forget(tokenKey(base, s), tok)
			continue
		}
		if res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden {
			return nil, &carrier.Rejection{Field: "clientSecret",
				Message: "PPL refused the access token (HTTP " + http.StatusText(res.Status) + ")" + problemDetail(res.Body)}
		}
		return res, nil
	}
}

func (c *Carrier) send(ctx context.Context, tok *oauth2.Token, cl call) (*carrierhttp.Response, error) {
	var body *bytes.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	var req *http.Request
	var err error
	if body != nil {
		req, err = http.NewRequestWithContext(ctx, cl.method, cl.url, body)
	} else {
		req, err = http.NewRequestWithContext(ctx, cl.method, cl.url, nil)
	}
	if err != nil {
		return nil, err
	}
	if tok != nil {
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	accept := cl.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	return carrierhttp.Do(c.cfg.HTTPClient, req)
}
