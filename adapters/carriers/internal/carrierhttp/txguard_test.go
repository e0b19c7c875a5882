package carrierhttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/txguard"
)

// A carrier call, on any client, and a token fetch are refused while a
// database transaction is open in their context (ADR 0001), and go out
// before it began and after it finished.
func TestCallsInsideATransactionAreRefused(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	var open atomic.Bool
	ctx := txguard.Hold(t.Context(), "the test's transaction", open.Load)
	calls := map[string]func() error{
		"Do on the default client": func() error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/orders", nil)
			_, err := carrierhttp.Do(nil, req)
			return err
		},
		"Do on a client of its own": func() error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/orders", nil)
			_, err := carrierhttp.Do(&http.Client{Timeout: time.Second}, req)
			return err
		},
		"the default client directly (as oauth2 uses it)": func() error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/token", nil)
			res, err := carrierhttp.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
			}
			return err
		},
		"a token fetch": func() error {
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
		if err := call(); err != nil {
			t.Errorf("%s before the transaction began: %v", name, err)
		}
		open.Store(true)
		var err error
		if refused := txguard.Refusal(func() { err = call() }); !errors.Is(refused, txguard.ErrInTransaction) {
			t.Errorf("%s inside: refused %v, returned %v; want a refusal", name, refused, err)
		}
		open.Store(false)
		if err := call(); err != nil {
			t.Errorf("%s after it finished: %v", name, err)
		}
		if n := hits.Load(); n != 2 {
			t.Errorf("%s: the carrier was reached %d times, want 2 (the refused call stays home)", name, n)
		}
	}
}
