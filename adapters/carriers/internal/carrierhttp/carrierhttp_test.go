package carrierhttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

func TestDoSortsAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Write([]byte("fine"))
		case "/bad":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"bad"}`))
		case "/busy":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/hang":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	get := func(path string, timeout time.Duration) (*carrierhttp.Response, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		return carrierhttp.Do(nil, req)
	}
	if res, err := get("/ok", time.Second); err != nil || res.Status != 200 || string(res.Body) != "fine" {
		t.Errorf("/ok: %v %v", res, err)
	}
	if res, err := get("/bad", time.Second); err != nil || res.Status != 400 || string(res.Body) != `{"error":"bad"}` {
		t.Errorf("/bad is the adapter's to read: %v %v", res, err)
	}
	for _, path := range []string{"/busy", "/down"} {
		if _, err := get(path, time.Second); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", path, err)
		}
	}
	if _, err := get("/hang", 50*time.Millisecond); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("/hang: %v, want ErrUnavailable", err)
	}
}

// A 5xx the adapter accepts as an answer (a SOAP fault on HTTP 500) comes
// back to be read; every other 5xx is still unavailable.
func TestDoAnsweringReadsAcceptedFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fault":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("<Fault>login refused</Fault>"))
		case "/crash":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("stack trace"))
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("<Fault>maintenance</Fault>"))
		}
	}))
	defer srv.Close()
	isFault := func(status int, body []byte) bool {
		return status == http.StatusInternalServerError && string(body[:7]) == "<Fault>"
	}
	get := func(path string) (*carrierhttp.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, nil)
		return carrierhttp.DoAnswering(nil, req, isFault)
	}
	if res, err := get("/fault"); err != nil || res.Status != http.StatusInternalServerError || string(res.Body) != "<Fault>login refused</Fault>" {
		t.Errorf("a fault on 500: %+v, %v; want it back to be read", res, err)
	}
	for _, path := range []string{"/crash", "/down"} {
		if _, err := get(path); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("%s: %v, want unavailable", path, err)
		}
	}
}

func TestTokensFetchOncePerKeyUntilForgotten(t *testing.T) {
	var tokens carrierhttp.Tokens
	var fetches atomic.Int32
	fetch := func(context.Context) (*oauth2.Token, error) {
		n := fetches.Add(1)
		time.Sleep(10 * time.Millisecond) // callers arriving meanwhile wait for this fetch
		return &oauth2.Token{AccessToken: "t" + string(rune('0'+n)), Expiry: time.Now().Add(time.Hour)}, nil
	}
	key := carrierhttp.Key("https://host", "id", "secret")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := tokens.Get(context.Background(), key, fetch); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if fetches.Load() != 1 {
		t.Fatalf("%d fetches for 8 concurrent callers, want 1", fetches.Load())
	}
	tok, _ := tokens.Get(context.Background(), key, fetch)
	tokens.Forget(key, tok)
	again, _ := tokens.Get(context.Background(), key, fetch)
	if fetches.Load() != 2 || again.AccessToken == tok.AccessToken {
		t.Fatalf("after Forget: %d fetches, token %q (was %q)", fetches.Load(), again.AccessToken, tok.AccessToken)
	}
	if carrierhttp.Key("https://host", "id", "other") == key {
		t.Error("other credentials share the key")
	}
	expired := func(context.Context) (*oauth2.Token, error) {
		fetches.Add(1)
		return &oauth2.Token{AccessToken: "short", Expiry: time.Now().Add(5 * time.Second)}, nil // inside oauth2's 10 s margin
	}
	other := carrierhttp.Key("https://host", "short")
	tokens.Get(context.Background(), other, expired)
	tokens.Get(context.Background(), other, expired)
	if fetches.Load() != 4 {
		t.Errorf("a token about to expire was reused: %d fetches", fetches.Load())
	}
}

// A token Put under a key is what Get answers there, without a fetch.
func TestTokensPut(t *testing.T) {
	var tokens carrierhttp.Tokens
	put := &oauth2.Token{AccessToken: "put", Expiry: time.Now().Add(time.Hour)}
	key := carrierhttp.Key("https://host", "renamed")
	tokens.Put(key, put)
	got, err := tokens.Get(context.Background(), key, func(context.Context) (*oauth2.Token, error) {
		t.Error("fetched although a token was put")
		return nil, errors.New("no fetch")
	})
	if err != nil || got != put {
		t.Errorf("Get after Put: %v, %v", got, err)
	}
}
