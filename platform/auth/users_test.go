package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"shipd/platform/auth"
)

func TestPasswordHashIsArgon2idAndSalted(t *testing.T) {
	a, err := auth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := auth.HashPassword("correct horse battery")
	if !strings.HasPrefix(a, "$argon2id$v=19$m=19456,t=2,p=1$") || a == b {
		t.Errorf("hashes %q and %q: want argon2id PHC strings with their own salts", a, b)
	}
	if strings.Contains(a, "correct horse") {
		t.Error("the hash holds the password")
	}
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		if ok, err := auth.PasswordMatches(a, pw); err != nil || ok != want {
			t.Errorf("PasswordMatches(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=99999999,t=2,p=1$AAAA$AAAA", "$argon2id$v=19$m=19456,t=2,p=1$!!$AAAA"} {
		if _, err := auth.PasswordMatches(bad, "x"); err == nil {
			t.Errorf("PasswordMatches accepted the hash %q", bad)
		}
	}
}

func TestCreateUserAndCheckPassword(t *testing.T) {
	store, db := newStore(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, auth.NewUserRequest{AccountName: "acme", Email: " Jana@Example.com ", Password: "long enough password"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "Jana@Example.com" || u.AccountName != "acme" || !strings.HasPrefix(u.ID, "usr_") {
		t.Errorf("user %+v", u)
	}
	var stored string
	if err := db.Get(&stored, `SELECT password_hash FROM platform.users WHERE id = $1`, u.ID); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "$argon2id$") {
		t.Errorf("stored %q, want an argon2id hash", stored)
	}

	got, err := store.CheckPassword(ctx, "jana@example.COM", "long enough password")
	if err != nil || got.ID != u.ID || got.AccountID != u.AccountID {
		t.Errorf("sign-in: %+v %v", got, err)
	}
	for _, c := range []struct{ email, password string }{
		{"jana@example.com", "long enough passwort"},
		{"nobody@example.com", "long enough password"},
		{"jana@example.com", strings.Repeat("x", 5000)},
	} {
		if _, err := store.CheckPassword(ctx, c.email, c.password); !errors.Is(err, auth.ErrWrongCredentials) {
			t.Errorf("sign-in %s / %.20q: %v, want wrong credentials", c.email, c.password, err)
		}
	}

	for _, c := range []struct {
		req   auth.NewUserRequest
		field string
	}{
		{auth.NewUserRequest{AccountName: "acme", Email: "JANA@example.com", Password: "another long password"}, "email"},
		{auth.NewUserRequest{AccountName: "acme", Email: "Jana <j@example.com>", Password: "another long password"}, "email"},
		{auth.NewUserRequest{AccountName: "acme", Email: "not an address", Password: "another long password"}, "email"},
		{auth.NewUserRequest{AccountName: "acme", Email: "k@example.com", Password: "short"}, "password"},
		{auth.NewUserRequest{AccountName: "acme", Email: "k@example.com", Password: strings.Repeat("p", 257)}, "password"},
		{auth.NewUserRequest{AccountName: " ", Email: "k@example.com", Password: "another long password"}, "account"},
	} {
		_, err := store.CreateUser(ctx, c.req)
		var p *auth.UserProblem
		if !errors.As(err, &p) || p.Field != c.field {
			t.Errorf("%+v: %v, want a problem with %s", c.req, err, c.field)
		}
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM platform.users`); err != nil || n != 1 {
		t.Errorf("%d users stored (%v), want only the first", n, err)
	}
}
