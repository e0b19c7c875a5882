package gls

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

func (e env) tokenKey() string { return carrierhttp.Key(e.auth, e.clientID, e.secret) }

// token returns the cached token of e's credentials, or logs in.
func (c *Carrier) token(ctx context.Context, e env) (*oauth2.Token, error) {
	return c.tokens.Get(ctx, e.tokenKey(), func(ctx context.Context) (*oauth2.Token, error) {
		cc := clientcredentials.Config{ClientID: e.clientID, ClientSecret: e.secret, TokenURL: e.auth,
			AuthStyle: oauth2.AuthStyleInHeader}
		tok, err := cc.Token(carrierhttp.WithClient(ctx, c.cfg.HTTPClient))
		if err != nil {
			return nil, tokenError(err)
		}
		return tok, nil
	})
}

// tokenError sorts a failed login; GLS's FaultResponse
// {"errors":[{"message","type"}]} gives the message when there is one.
func tokenError(err error) error {
	sorted := carrierhttp.TokenError(err, "clientSecret")
	var rej *carrier.Rejection
	var re *oauth2.RetrieveError
	if errors.As(sorted, &rej) && errors.As(err, &re) {
		var fault struct {
			Errors []struct{ Message, Type string } `json:"errors"`
		}
		if json.Unmarshal(re.Body, &fault) == nil && len(fault.Errors) > 0 && fault.Errors[0].Message != "" {
			return &carrier.Rejection{Field: "clientSecret", Message: "GLS refused the credentials: " + fault.Errors[0].Message}
		}
	}
	return sorted
}

// call sends an authorized request and reads the answer. A 401 on a cached
// token drops it, logs in once more and repeats the call once.
func (c *Carrier) call(ctx context.Context, e env, method, url, accept string, body []byte) (*carrierhttp.Response, error) {
	for attempt := 0; ; attempt++ {
		tok, err := c.token(ctx, e)
		if err != nil {
			return nil, err
		}
		var rd *bytes.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := newRequest(ctx, method, url, rd)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		req.Header.Set("Accept", accept)
		if body != nil {
			req.Header.Set("Content-Type", accept)
		}
		res, err := carrierhttp.Do(c.cfg.HTTPClient, req)
		if err != nil {
			return nil, err
		}
		if res.Status == http.StatusUnauthorized && attempt == 0 {
			c.tokens.Forget(e.tokenKey(), tok)
			continue
		}
		if res.Status == http.StatusUnauthorized {
			return nil, &carrier.Rejection{Field: "clientSecret", Message: "GLS refused a fresh access token: " + faultMessage(res)}
		}
		return res, nil
	}
}

func newRequest(ctx context.Context, method, url string, body *bytes.Reader) (*http.Request, error) {
	if body == nil {
		return http.NewRequestWithContext(ctx, method, url, nil)
	}
	return http.NewRequestWithContext(ctx, method, url, body)
}

// faultMessage reads an API gateway fault {"fault":{"faultstring"}}, else
// the status text.
func faultMessage(res *carrierhttp.Response) string {
	var f struct {
		Fault struct {
			Faultstring string `json:"faultstring"`
		} `json:"fault"`
	}
	if json.Unmarshal(res.Body, &f) == nil && f.Fault.Faultstring != "" {
		return f.Fault.Faultstring
	}
	return http.StatusText(res.Status)
}
