package idempotency_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/httpapi"
	"shipd/platform/postgres"
	"shipd/platform/txguard"
)

// A handler under an Idempotency-Key that writes and then calls out (a
// carrier, a webhook receiver) would hold the request's transaction open
// through the call: the call is refused, loudly, and nothing of the request
// is kept. The same handler calling out before its first write, as the
// handlers do, works (ADR 0001, ADR 0007).
func TestCallingOutAfterWritingUnderAKeyIsRefused(t *testing.T) {
	s, _, db := newStore(t)
	writes(t, db)
	var reached atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	t.Cleanup(remote.Close)
	client := &http.Client{Transport: txguard.Transport(nil)}
	callOut := func(r *http.Request) error {
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, remote.URL+"/orders", nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		return res.Body.Close()
	}
	serve := serverOn(s, func(w http.ResponseWriter, r *http.Request) {
		first := r.URL.Query().Get("first")
		if first == "call" {
			if err := callOut(r); err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
		}
		if err := postgres.InTx(r.Context(), db, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(r.Context(), `INSERT INTO public.resources (id) VALUES ($1)`, r.URL.Query().Get("id"))
			return err
		}); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		if first == "write" {
			if err := callOut(r); err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
		}
		httpapi.WriteData(w, http.StatusCreated, map[string]string{"id": "x"}, "Created")
	})

	if rec := serve(request{key: "k-call-first", path: "/v1/x?first=call&id=called-first", body: `{}`}); rec.Code != http.StatusCreated {
		t.Fatalf("calling out before the first write: %d %s", rec.Code, rec.Body)
	}
	if reached.Load() != 1 {
		t.Fatalf("the remote party was reached %d times, want 1", reached.Load())
	}

	err := txguard.Refusal(func() { serve(request{key: "k-write-first", path: "/v1/x?first=write&id=written-first", body: `{}`}) })
	if !errors.Is(err, txguard.ErrInTransaction) {
		t.Fatalf("calling out after a write: %v, want the call refused", err)
	}
	if reached.Load() != 1 {
		t.Errorf("the refused call reached the remote party")
	}
	if got := resources(t, db); len(got) != 1 || got[0] != "called-first" || keyState(t, db, "k-write-first") != "absent" {
		t.Errorf("after the refusal: resources %v, key %s; want nothing of the request kept and its key released", got, keyState(t, db, "k-write-first"))
	}
}
