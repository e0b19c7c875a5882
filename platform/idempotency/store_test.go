package idempotency_test

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/clock"
	"shipd/platform/idempotency"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/secrets"
)

var start = time.Date(2030, 1, 2, 12, 0, 0, 0, time.UTC)

func newStore(t testing.TB) (*idempotency.Store, *clock.Manual, *sqlx.DB) {
	t.Helper()
	db := pgtest.Open(t)
	clk := clock.NewManual(start)
	return idempotency.NewStore(db, clk, testBox(t), livePresence(t, db)), clk, db
}

func testBox(t testing.TB) *secrets.Box {
	t.Helper()
	box, err := secrets.NewBox("idempotency-test-key-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// livePresence runs a presence, as every instance does, until the test ends.
func livePresence(t testing.TB, db *sqlx.DB) *postgres.Presence {
	t.Helper()
	p := postgres.NewPresence(db)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive, err := p.Alive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if alive {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatal("the presence lock was not taken within 10 s")
		}
		time.Sleep(5 * time.Millisecond) // between polls of the presence lock
	}
}

var (
	fpA = idempotency.NewRequest(http.MethodPost, "/v1/shipments", []byte(`{"a":1}`))
	fpB = idempotency.NewRequest(http.MethodPost, "/v1/shipments", []byte(`{"a":2}`))
)

// tokens remembers the token of the latest claim of each account/key, as the
// middleware does between Claim and Complete or Release.
var (
	tokensMu sync.Mutex
	tokens   = map[string]string{}
)

func token(account, key string) string {
	tokensMu.Lock()
	defer tokensMu.Unlock()
	return tokens[account+"/"+key]
}

func claim(t *testing.T, s *idempotency.Store, account, key string, fp idempotency.Request) (idempotency.Outcome, *idempotency.Stored) {
	t.Helper()
	outcome, stored, tok, err := s.Claim(t.Context(), account, key, fp)
	if err != nil {
		t.Fatalf("Claim(%s, %s): %v", account, key, err)
	}
	if outcome == idempotency.Claimed {
		if tok == "" {
			t.Fatal("Claimed without a token")
		}
		tokensMu.Lock()
		tokens[account+"/"+key] = tok
		tokensMu.Unlock()
	}
	return outcome, stored
}

func wantOutcome(t *testing.T, s *idempotency.Store, account, key string, fp idempotency.Request, want idempotency.Outcome) *idempotency.Stored {
	t.Helper()
	got, stored := claim(t, s, account, key, fp)
	if got != want {
		t.Fatalf("Claim(%s, %s) = %v, want %v", account, key, got, want)
	}
	if want != idempotency.Replay && stored != nil {
		t.Errorf("Claim returned a stored answer with outcome %v", got)
	}
	return stored
}

func complete(t *testing.T, s *idempotency.Store, db *sqlx.DB, account, key string) {
	t.Helper()
	err := completeWith(t, s, db, account, key, token(account, key), idempotency.Stored{
		Status: http.StatusCreated,
		Header: http.Header{
			"Content-Type": {"application/json"},
			"Location":     {"/v1/shipments/sh_1"},
			"X-Request-Id": {"req_first"},
		},
		Body: []byte(`{"data":{"id":"sh_1"}}`),
	})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
}

// completeWith stores an answer in a transaction of its own, as a request
// that wrote nothing else does.
func completeWith(t *testing.T, s *idempotency.Store, db *sqlx.DB, account, key, tok string, st idempotency.Stored) error {
	t.Helper()
	return postgres.InTx(t.Context(), db, func(tx *sqlx.Tx) error {
		return s.Complete(t.Context(), tx, account, key, tok, st)
	})
}

func TestRequestFingerprint(t *testing.T) {
	base := idempotency.NewRequest("POST", "/v1/a", []byte("x"))
	if string(base.Fingerprint) != string(idempotency.NewRequest("POST", "/v1/a", []byte("x")).Fingerprint) {
		t.Error("fingerprint is not deterministic")
	}
	for name, other := range map[string]idempotency.Request{
		"method": idempotency.NewRequest("PUT", "/v1/a", []byte("x")),
		"path":   idempotency.NewRequest("POST", "/v1/b", []byte("x")),
		"body":   idempotency.NewRequest("POST", "/v1/a", []byte("y")),
	} {
		if string(other.Fingerprint) == string(base.Fingerprint) {
			t.Errorf("another %s gives the same fingerprint", name)
		}
	}
}

func TestClaimCompleteReplay(t *testing.T) {
	s, clk, db := newStore(t)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Claimed)
	clk.Advance(time.Second)
	complete(t, s, db, "acc_1", "k")

	clk.Advance(time.Hour)
	stored := wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Replay)
	if stored == nil {
		t.Fatal("Replay without a stored answer")
	}
	if stored.Status != http.StatusCreated || string(stored.Body) != `{"data":{"id":"sh_1"}}` {
		t.Errorf("stored = %d %s", stored.Status, stored.Body)
	}
	want := http.Header{"Content-Type": {"application/json"}, "Location": {"/v1/shipments/sh_1"}}
	if len(stored.Header) != len(want) || stored.Header.Get("Content-Type") != "application/json" ||
		stored.Header.Get("Location") != "/v1/shipments/sh_1" {
		t.Errorf("stored header = %v, want only %v (per-request headers are not kept)", stored.Header, want)
	}

	// The same key with another request is refused, and changes nothing.
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Reused)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Replay)

	// Keys belong to accounts.
	wantOutcome(t, s, "acc_2", "k", fpB, idempotency.Claimed)
}

func TestClaimWhileRunning(t *testing.T) {
	s, clk, _ := newStore(t)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Claimed)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Running)
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Reused)

	// Exactly 60 s is not yet abandoned; a moment later another request takes it over.
	clk.Advance(60 * time.Second)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Running)
	clk.Advance(time.Second)
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Claimed)
	// The take-over is a claim of its own: running again, with the new fingerprint.
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Running)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Reused)
}

func TestCompletedKeyExpiresAfterTTL(t *testing.T) {
	s, clk, db := newStore(t)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Claimed)
	complete(t, s, db, "acc_1", "k")

	clk.Advance(idempotency.TTL - time.Second)
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Reused)
	clk.Advance(2 * time.Second)
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Claimed)
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Running)
}

func TestRelease(t *testing.T) {
	s, _, db := newStore(t)
	wantOutcome(t, s, "acc_1", "k", fpA, idempotency.Claimed)
	if err := s.Release(t.Context(), db, "acc_1", "k", token("acc_1", "k")); err != nil {
		t.Fatalf("Release: %v", err)
	}
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM platform.idempotency_keys`); err != nil || n != 0 {
		t.Errorf("rows after Release = %d, %v; want 0", n, err)
	}
	// Released: anyone may claim it, even with another request.
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Claimed)

	// A completed key is not released.
	complete(t, s, db, "acc_1", "k")
	if err := s.Release(t.Context(), db, "acc_1", "k", token("acc_1", "k")); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, s, "acc_1", "k", fpB, idempotency.Replay)
}

func TestPurge(t *testing.T) {
	s, clk, db := newStore(t)
	wantOutcome(t, s, "acc_1", "old", fpA, idempotency.Claimed)
	complete(t, s, db, "acc_1", "old")
	clk.Advance(23 * time.Hour)
	wantOutcome(t, s, "acc_1", "young", fpA, idempotency.Claimed)
	complete(t, s, db, "acc_1", "young")

	clk.Advance(time.Hour + time.Second) // old is 24 h 1 s old, young 1 h 1 s
	if err := s.Purge(t.Context()); err != nil {
		t.Fatalf("Purge: %v", err)
	}
	var keys []string
	if err := db.SelectContext(t.Context(), &keys, `SELECT key FROM platform.idempotency_keys ORDER BY key`); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "young" {
		t.Errorf("keys after Purge = %v, want [young]", keys)
	}
}

// Many requests with one new key at the same moment: exactly one claims it,
// every other one learns that it is running. None may fail.
func TestClaimConcurrentFirstUse(t *testing.T) {
	s, _, _ := newStore(t)
	const racers = 20
	for round := range 10 {
		key := "race-" + strconv.Itoa(round)
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			outcomes = map[idempotency.Outcome]int{}
			errs     []error
		)
		for range racers {
			wg.Go(func() {
				o, _, _, err := s.Claim(t.Context(), "acc_1", key, fpA)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				outcomes[o]++
			})
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("round %d: %d of %d concurrent claims failed, first: %v", round, len(errs), racers, errs[0])
		}
		if outcomes[idempotency.Claimed] != 1 || outcomes[idempotency.Running] != racers-1 {
			t.Fatalf("round %d: outcomes %v, want 1 claimed and %d running", round, outcomes, racers-1)
		}
	}
}

// A holder whose claim was taken over cannot overwrite the new holder's row.
func TestStaleClaimCannotComplete(t *testing.T) {
	s, clk, db := newStore(t)
	wantOutcome(t, s, "acc_1", "slow", fpA, idempotency.Claimed)
	stale := token("acc_1", "slow")
	clk.Advance(61 * time.Second)
	wantOutcome(t, s, "acc_1", "slow", fpA, idempotency.Claimed) // taken over
	if err := completeWith(t, s, db, "acc_1", "slow", stale, idempotency.Stored{Status: 500, Header: http.Header{}}); err == nil {
		t.Fatal("a taken-over claim completed")
	}
	if err := s.Release(t.Context(), db, "acc_1", "slow", stale); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, s, "acc_1", "slow", fpA, idempotency.Running) // still the new holder's
	complete(t, s, db, "acc_1", "slow")
	if st := wantOutcome(t, s, "acc_1", "slow", fpA, idempotency.Replay); st.Status != http.StatusCreated {
		t.Errorf("stored status %d", st.Status)
	}
}
