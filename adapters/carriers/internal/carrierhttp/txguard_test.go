package carrierhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/txguard/txguardtest"
)

// A carrier call, on any client, and a token fetch are refused while a
// database transaction is open in their context (ADR 0001), and go out
// before it began and after it finished.
func TestCallsInsideATransactionAreRefused(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	calls := map[string]func(ctx context.Context) error{
		"Do on the default client": func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/orders", nil)
			_, err := carrierhttp.Do(nil, req)
			return err
		},
		"Do on a client of its own": func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/orders", nil)
			_, err := carrierhttp.Do(&http.Client{Timeout: time.Second}, req)
			return err
		},
		"the default client directly (as oauth2 uses it)": func(ctx context.Context) error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/token", nil)
			res, err := carrierhttp.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
			}
			return err
		},
		"a token fetch": func(ctx context.Context) error {
			var tokens carrierhttp.Tokens
			_, err := tokens.Get(ctx, "key", func(context.Context) (*oauth2.Token, error) {
				hits.Add(1)
				return &oauth2.Token{AccessToken: "t", Expiry: time.Now().Add(time.Hour)}, nil
			})
			return err
		},
	}
	for name, call := range calls {
		hits.Store(0)
		txguardtest.RefusedOnlyInside(t, name, call)
		if n := hits.Load(); n != 2 {
			t.Errorf("%s: the carrier was reached %d times, want 2 (the refused call stays home)", name, n)
		}
	}
}
