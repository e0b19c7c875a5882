package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"shipd/platform/postgres/pgtest"
)

// A key the operator could not be shown (its standard output full) is
// revoked again, and the command fails saying so: a key is shown once only,
// so one nobody saw is of no use to anyone.
func TestKeyThatCouldNotBeShownIsRevoked(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here:", err)
	}
	t.Cleanup(func() { full.Close() })
	dsn := pgtest.NewDatabase(t)
	cmd := exec.Command(binary, "keys", "create", "--account", "unseen")
	cmd.Env = shipdEnv(dsn, "127.0.0.1:0")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = full, &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "could not be shown") || !strings.Contains(stderr.String(), "revoked") {
		t.Fatalf("keys create into a full output: %v\n%s", err, stderr.String())
	}
	list := runShipd(t, dsn, "keys", "list", "--account", "unseen")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 2 || strings.HasSuffix(strings.TrimSpace(lines[1]), " -") {
		t.Errorf("the unseen key is not revoked:\n%s", list)
	}
}
