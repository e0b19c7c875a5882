package main_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"shipd/platform/apptest"
	"shipd/platform/postgres/pgtest"
)

// These tests run the real binary as separate processes, as an operator would.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shipd-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "shipd")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building shipd: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func shipdEnv(dsn, addr string, extra ...string) []string {
	return append(append(os.Environ(), "DATABASE_URL="+dsn, "HTTP_ADDR="+addr, "LOG_LEVEL=warn",
		"SECRET_KEY=process-test-secret-key-0123456789abcdef"), extra...)
}

func runShipd(t *testing.T, dsn string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = shipdEnv(dsn, "127.0.0.1:0")
	return apptest.CommandOutput(t, cmd)
}

// process is a `shipd serve` of these tests and its base URL.
type process struct {
	*apptest.Process
	url string
}

// startServe runs `shipd serve`; extra adds environment variables.
func startServe(t *testing.T, dsn string, extra ...string) *process {
	t.Helper()
	addr := apptest.FreeAddr(t)
	cmd := exec.Command(binary, "serve")
	cmd.Env = shipdEnv(dsn, addr, extra...)
	p := &process{Process: apptest.StartProcess(t, "shipd serve", cmd), url: "http://" + addr}
	p.AwaitHealthy(t, p.url)
	return p
}

// send makes one request of the API with key, as a client of the process
// would; a body is JSON.
func send(t *testing.T, method, url, key string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func get(t *testing.T, url, key string) *http.Response {
	t.Helper()
	res := send(t, http.MethodGet, url, key, nil)
	res.Body.Close()
	return res
}

func TestKeysCommands(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	out := runShipd(t, dsn, "keys", "create", "--account", "demo", "--permissions", "channels:read", "--name", "ci")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "shp_") || len(key) != 44 {
		t.Fatalf("last line is not a key: %q", out)
	}
	list := runShipd(t, dsn, "keys", "list", "--account", "demo")
	if strings.Contains(list, key) || !strings.Contains(list, "channels:read") || !strings.Contains(list, key[:10]) {
		t.Fatalf("keys list shows the key or misses it:\n%s", list)
	}
	var keyID string
	for _, f := range strings.Fields(list) {
		if strings.HasPrefix(f, "key_") {
			keyID = f
		}
	}
	p := startServe(t, dsn)
	if res := get(t, p.url+"/v1/shipping-channels", key); res.StatusCode != 200 {
		t.Fatalf("new key: %d", res.StatusCode)
	}
	runShipd(t, dsn, "keys", "revoke", keyID)
	// A serving instance trusts a key it looked up for at most 2 s (ADR 0013).
	deadline := time.Now().Add(5 * time.Second)
	for get(t, p.url+"/v1/shipping-channels", key).StatusCode != 401 {
		if time.Now().After(deadline) {
			t.Fatal("the revoked key still works after 5 s")
		}
		time.Sleep(100 * time.Millisecond) // between tries of the revoked key
	}
	status := runShipd(t, dsn, "migrate", "status")
	if !strings.Contains(status, "00001_platform.sql") || strings.Contains(status, "pending") {
		t.Fatalf("migrate status:\n%s", status)
	}
	if out := runShipd(t, dsn, "migrate", "up"); !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate up: %s", out)
	}
}

// Two serve processes on one database share one account's limit exactly.
func TestTwoProcessesShareTheRateLimit(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	a, b := startServe(t, dsn), startServe(t, dsn)
	// A burst that straddles a minute boundary counts in two windows; then
	// it is repeated with a fresh account.
	for attempt := range 3 {
		out := runShipd(t, dsn, "keys", "create", "--account", fmt.Sprintf("limited-%d", attempt), "--plan", "standard", "--rate-limit", "25")
		key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
		var mu sync.Mutex
		counts := map[int]int{}
		windows := map[string]bool{}
		var wg sync.WaitGroup
		for i := range 36 {
			wg.Go(func() {
				url := a.url
				if i%2 == 1 {
					url = b.url
				}
				res := get(t, url+"/v1/shipping-channels", key)
				mu.Lock()
				counts[res.StatusCode]++
				windows[res.Header.Get("X-RateLimit-Reset")] = true
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(windows) > 1 {
			continue
		}
		if counts[200] != 25 || counts[429] != 11 {
			t.Fatalf("statuses %v, want 25 × 200 and 11 × 429 across the two processes", counts)
		}
		return
	}
	t.Fatal("three bursts in a row straddled a minute boundary")
}

// SIGINT (Ctrl-C) stops serve gracefully: it exits 0 after saying so.
func TestServeStopsGracefully(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	p := startServe(t, dsn)
	if err := p.Cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v:\n%s", err, p.Log())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20s")
	}
}
