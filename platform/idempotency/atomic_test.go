package idempotency_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/clock"
	"shipd/platform/httpapi"
	"shipd/platform/idempotency"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// writes is a table standing in for a module's resources.
func writes(t *testing.T, db *sqlx.DB) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE public.resources (id text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
}

func resources(t *testing.T, db *sqlx.DB) []string {
	t.Helper()
	var ids []string
	if err := db.SelectContext(t.Context(), &ids, `SELECT id FROM public.resources ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	return ids
}

// creatingResource inserts one row through postgres.InTx, as a repository
// does, then answers 201 naming it.
func creatingResource(db *sqlx.DB, calls *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := "res_" + string(rune('0'+calls.Add(1)))
		err := postgres.InTx(r.Context(), db, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(r.Context(), `INSERT INTO public.resources (id) VALUES ($1)`, id)
			return err
		})
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		httpapi.WriteData(w, http.StatusCreated, map[string]string{"id": id}, "Created")
	}
}

func keyState(t *testing.T, db *sqlx.DB, key string) string {
	t.Helper()
	var state string
	err := db.GetContext(t.Context(), &state, `SELECT state FROM platform.idempotency_keys WHERE key = $1`, key)
	if err != nil {
		return "absent"
	}
	return state
}

// The resource and the key's answer commit together: once the answer is
// heard, both are there; a retry replays it and writes nothing.
func TestAnswerCommitsWithTheResource(t *testing.T) {
	s, _, db := newStore(t)
	writes(t, db)
	var calls atomic.Int32
	serve := serverOn(s, creatingResource(db, &calls))

	first := serve(request{key: "k-1", body: `{"name":"x"}`})
	if first.Code != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	if got := resources(t, db); len(got) != 1 || keyState(t, db, "k-1") != "done" {
		t.Fatalf("after the answer: resources %v, key %s; want one resource and a done key", got, keyState(t, db, "k-1"))
	}
	again := serve(request{key: "k-1", body: `{ "name" : "x" }`})
	if again.Code != http.StatusCreated || again.Header().Get("Idempotent-Replayed") != "true" || again.Body.String() != first.Body.String() {
		t.Errorf("retry: %d replayed=%q %s", again.Code, again.Header().Get("Idempotent-Replayed"), again.Body)
	}
	if got := resources(t, db); len(got) != 1 || calls.Load() != 1 {
		t.Errorf("after the retry: resources %v, handler ran %d times", got, calls.Load())
	}
}

// A request whose claim was taken over while it ran keeps nothing: its
// resource is rolled back with the answer it could not store.
func TestTakenOverRequestKeepsNothing(t *testing.T) {
	s, _, db := newStore(t)
	writes(t, db)
	var calls atomic.Int32
	create := creatingResource(db, &calls)
	serve := serverOn(s, func(w http.ResponseWriter, r *http.Request) {
		// Another request takes the key over meanwhile (as one does when
		// this instance's presence looks gone).
		if _, err := db.ExecContext(r.Context(), `UPDATE platform.idempotency_keys SET claim_token = 'another' WHERE key = 'k-1'`); err != nil {
			t.Error(err)
		}
		create(w, r)
	})
	rec := serve(request{key: "k-1", body: `{}`})
	if rec.Code != http.StatusConflict || errorCode(t, rec) != "conflict" {
		t.Errorf("status %d: %s", rec.Code, rec.Body)
	}
	if got := resources(t, db); len(got) != 0 {
		t.Errorf("resources %v kept by a request that lost its key", got)
	}
}

// A handler that writes and then answers 5xx keeps what it wrote (a failed
// tracking check is recorded), and the key is released for a retry; one
// that panics keeps nothing.
func TestServerErrorAndPanicAfterWriting(t *testing.T) {
	s, _, db := newStore(t)
	writes(t, db)
	serve := serverOn(s, func(w http.ResponseWriter, r *http.Request) {
		err := postgres.InTx(r.Context(), db, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(r.Context(), `INSERT INTO public.resources (id) VALUES ($1)`, r.URL.Query().Get("id"))
			return err
		})
		if err != nil {
			t.Error(err)
		}
		if r.URL.Query().Get("panic") != "" {
			panic("handler bug")
		}
		httpapi.WriteErrorBody(w, r, http.StatusServiceUnavailable, "provider_unavailable", "The carrier could not be reached.", nil)
	})
	if rec := serve(request{key: "k-503", path: "/v1/x?id=failed-check", body: `{}`}); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", rec.Code)
	}
	if got := resources(t, db); len(got) != 1 || keyState(t, db, "k-503") != "absent" {
		t.Errorf("after a 503: resources %v, key %s; want the write kept and the key released", got, keyState(t, db, "k-503"))
	}

	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach the caller")
			}
		}()
		serve(request{key: "k-panic", path: "/v1/x?id=half-done&panic=1", body: `{}`})
	}()
	if got := resources(t, db); len(got) != 1 || keyState(t, db, "k-panic") != "absent" {
		t.Errorf("after a panic: resources %v, key %s; want nothing kept and the key released", got, keyState(t, db, "k-panic"))
	}
}

// An instance that dies mid-request (its presence lock gone, its transaction
// never committed) leaves a running claim that the retry takes over at once,
// not after the 60 s timeout, and the resource is created once.
func TestClaimOfADeadInstanceIsTakenOverAtOnce(t *testing.T) {
	db := pgtest.Open(t)
	writes(t, db)
	clk := clock.NewManual(start)
	box := testBox(t)

	// The dying instance: its presence runs, then stops as a killed process's
	// would (its connection closed).
	dying := postgres.NewPresence(db)
	ctx, kill := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = dying.Run(ctx) }()
	waitAlive(t, dying, true)
	doomed := idempotency.NewStore(db, clk, box, dying)
	req := idempotency.NewRequest(http.MethodPost, "/v1/shipments", []byte(`{"a":1}`))
	if o, _, _, err := doomed.Claim(t.Context(), "acc_1", "k-crash", req); err != nil || o != idempotency.Claimed {
		t.Fatalf("claim: %v %v", o, err)
	}

	survivor := idempotency.NewStore(db, clk, box, livePresence(t, db))
	if o, _, _, _ := survivor.Claim(t.Context(), "acc_1", "k-crash", req); o != idempotency.Running {
		t.Fatalf("while the holder lives: %v, want running", o)
	}
	kill()
	<-stopped
	waitAlive(t, dying, false)

	var calls atomic.Int32
	serve := serverOn(survivor, creatingResource(db, &calls))
	if rec := serve(request{key: "k-crash", body: `{"a":1}`}); rec.Code != http.StatusCreated {
		t.Fatalf("retry after the crash: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(request{key: "k-crash", body: `{"a":1}`}); rec.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("second retry: %d, not replayed", rec.Code)
	}
	if got := resources(t, db); len(got) != 1 {
		t.Errorf("resources %v, want exactly one", got)
	}
}

func waitAlive(t *testing.T, p *postgres.Presence, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive, err := p.Alive(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if alive == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("presence alive = %v after 10 s, want %v", alive, want)
		}
		time.Sleep(5 * time.Millisecond) // between polls of the presence lock
	}
}

// Answers rest sealed: a secret in an answer (a generated webhook secret) is
// nowhere in the table in clear, and the replay still shows it.
func TestStoredAnswersAreSealed(t *testing.T) {
	s, _, db := newStore(t)
	const secret = "whsec_S3cr3tShownOnlyOnce"
	serve := serverOn(s, func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteData(w, http.StatusCreated, map[string]string{"generated_secret": secret}, "")
	})
	first := serve(request{key: "k-secret", body: `{}`})
	var raw []byte
	if err := db.GetContext(t.Context(), &raw, `SELECT convert_to(t::text, 'UTF8') FROM platform.idempotency_keys t WHERE key = 'k-secret'`); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret)) || bytes.Contains(raw, []byte(strings.ToLower(secret))) {
		t.Errorf("the stored row holds the secret in clear: %s", raw)
	}
	again := serve(request{key: "k-secret", body: `{}`})
	if again.Body.String() != first.Body.String() || !strings.Contains(again.Body.String(), secret) {
		t.Errorf("replay %s, first %s", again.Body, first.Body)
	}
}

// Keys stored before canonical comparison and sealing (a fingerprint of the
// body's bytes, the answer in clear) still replay for the same bytes.
func TestAnswersStoredBeforeSealingReplay(t *testing.T) {
	s, _, db := newStore(t)
	body := []byte(`{"b":1, "a":2}`)
	literal := idempotency.NewRequest(http.MethodPost, "/v1/shipments", body).Literal
	_, err := db.ExecContext(t.Context(), `INSERT INTO platform.idempotency_keys
		(account_id, key, fingerprint, state, claim_token, response_status, response_header, response_body, created_at, updated_at)
		VALUES ($1, 'k-old', $2, 'done', 'old', 201, '{"Content-Type":"application/json"}', $3, $4, $4)`,
		principal.AccountID, literal, []byte(`{"data":{"id":"sh_old"}}`), start)
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	serve := serverOn(s, creating(&calls))
	rec := serve(request{key: "k-old", body: string(body)})
	var got struct{ Data struct{ ID string } }
	_ = json.Unmarshal(rec.Body.Bytes(), &got)
	if rec.Code != http.StatusCreated || rec.Header().Get("Idempotent-Replayed") != "true" || got.Data.ID != "sh_old" || calls.Load() != 0 {
		t.Errorf("old key: %d replayed=%q %s, handler ran %d times", rec.Code, rec.Header().Get("Idempotent-Replayed"), rec.Body, calls.Load())
	}
}

// The same JSON written differently is the same request; other JSON is not.
func TestMiddlewareComparesJSONCanonically(t *testing.T) {
	var calls atomic.Int32
	serve := server(t, creating(&calls))
	first := serve(request{key: "k-json", body: `{"name":"x","parcels":[{"w":1.5,"h":2}]}`})
	for _, body := range []string{
		"{\n  \"parcels\": [ { \"h\": 2, \"w\": 1.5 } ],\n  \"name\": \"x\"\n}\n",
		`{"name":"\u0078","parcels":[{"h":2,"w":1.5}]}`,
	} {
		rec := serve(request{key: "k-json", body: body})
		if rec.Code != http.StatusCreated || rec.Header().Get("Idempotent-Replayed") != "true" || rec.Body.String() != first.Body.String() {
			t.Errorf("%q: %d replayed=%q", body, rec.Code, rec.Header().Get("Idempotent-Replayed"))
		}
	}
	for _, body := range []string{`{"name":"x","parcels":[{"w":1.5,"h":3}]}`, `{"name":"x"}`, `{"name":"x","name":"x","parcels":[{"w":1.5,"h":2}]}`} {
		if rec := serve(request{key: "k-json", body: body}); rec.Code != http.StatusUnprocessableEntity || errorCode(t, rec) != "idempotency_key_reused" {
			t.Errorf("%q: %d %s, want 422 idempotency_key_reused", body, rec.Code, rec.Body)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("handler ran %d times, want once", calls.Load())
	}
}
