package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/postgres/pgtest"
)

func TestSessionsLiveUntilTheyEnd(t *testing.T) {
	db := pgtest.Open(t)
	clk := clock.NewManual(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	store := auth.NewStore(db, clk)
	ctx := context.Background()
	user, err := store.CreateUser(ctx, auth.NewUserRequest{AccountName: "acme", Email: "jana@example.com", Password: "long enough password"})
	if err != nil {
		t.Fatal(err)
	}
	token, started, err := store.StartSession(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	// Stored: the token's SHA-256, never the token.
	var hashed, plain int
	if err := db.Get(&hashed, `SELECT count(*) FROM platform.sessions WHERE token_hash = sha256(convert_to($1, 'UTF8'))`, token); err != nil || hashed != 1 {
		t.Errorf("sessions stored under the token's hash: %d (%v), want 1", hashed, err)
	}
	if err := db.Get(&plain, `SELECT count(*) FROM platform.sessions s WHERE position(convert_to($1, 'UTF8') IN s.token_hash) > 0 OR s.csrf_token = $1`, token); err != nil || plain != 0 {
		t.Errorf("the token itself is stored (%d, %v)", plain, err)
	}
	got, err := store.SessionOf(ctx, token)
	if err != nil || got.User.ID != user.ID || got.User.AccountName != "acme" || got.CSRFToken != started.CSRFToken {
		t.Fatalf("session: %+v %v", got, err)
	}
	if !got.CSRFMatches(started.CSRFToken) || got.CSRFMatches("") || got.CSRFMatches(started.CSRFToken+"x") {
		t.Error("CSRF token check")
	}
	for _, bad := range []string{"", "nope", token + "x"} {
		if _, err := store.SessionOf(ctx, bad); !errors.Is(err, auth.ErrNoSession) {
			t.Errorf("SessionOf(%q): %v", bad, err)
		}
	}

	clk.Advance(auth.SessionLifetime) // expired
	if _, err := store.SessionOf(ctx, token); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("expired session: %v", err)
	}
	if n, err := store.PurgeSessions(ctx); err != nil || n != 1 {
		t.Errorf("purged %d (%v), want 1", n, err)
	}

	clk.Set(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	token, _, err = store.StartSession(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EndSession(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SessionOf(ctx, token); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("signed out session: %v", err)
	}
}
