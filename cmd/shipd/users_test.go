package main_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// `shipd users create` reads the password from standard input and stores
// only its hash; the user then signs in with it.
func TestUsersCreate(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	run := func(stdin string, args ...string) (string, string, error) {
		cmd := exec.Command(binary, append([]string{"users", "create"}, args...)...)
		cmd.Env = shipdEnv(dsn, "127.0.0.1:0")
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, errOut, err := run("a long dashboard password\n", "--account", "demo", "--email", "jana@example.com")
	if err != nil {
		t.Fatalf("users create: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "Created user usr_") || !strings.Contains(out, "jana@example.com") || strings.Contains(out+errOut, "dashboard password") {
		t.Errorf("output %q %q", out, errOut)
	}
	db, err := postgres.Open(context.Background(), dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := auth.NewStore(db, clock.Real{}).CheckPassword(context.Background(), "jana@example.com", "a long dashboard password"); err != nil {
		t.Errorf("signing in with the password given: %v", err)
	}

	for _, c := range []struct {
		stdin string
		args  []string
		says  string
	}{
		{"a long dashboard password\n", []string{"--account", "demo", "--email", "JANA@example.com"}, "email: a user with this address exists already"},
		{"short\n", []string{"--account", "demo", "--email", "k@example.com"}, "password: must be at least 12 characters"},
		{"", []string{"--account", "demo", "--email", "k@example.com"}, "no password on standard input"},
		{"a long dashboard password\n", []string{"--account", "demo"}, `required flag(s) "email" not set`},
	} {
		_, errOut, err := run(c.stdin, c.args...)
		if err == nil || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: %v %q, want a failure saying %q", c.args, err, errOut, c.says)
		}
	}
}
