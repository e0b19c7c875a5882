//go:build browser

// Package browser_test drives Debian's Chromium through the dashboard and the
// API reference, with playwright-core (flows.mjs): `make browser`, which
// installs the npm package first. Screenshots of every step go to
// test-artifacts/browser/ (ARTIFACTS overrides).
package browser_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
)

func TestDashboardInChromium(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	for _, need := range []string{chromium, "node"} {
		if _, err := exec.LookPath(need); err != nil {
			t.Fatalf("%s is needed (Debian: apt-get install chromium nodejs; .ci/run installs them): %v", need, err)
		}
	}
	if _, err := os.Stat("node_modules/playwright-core"); err != nil {
		t.Fatal("playwright-core is not installed: run `npm ci` in browser/ (make browser does)")
	}
	artifacts := os.Getenv("ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join("..", "test-artifacts", "browser")
	}
	artifacts, _ = filepath.Abs(artifacts)
	_ = os.RemoveAll(artifacts)

	env := apptest.Start(t, shipd.InitializeApp)
	const email, password = "jana@example.com", "a long browser test password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: "acme", Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	// A receiver that refuses every delivery, so the dashboard has a failed
	// attempt to show.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"receiver is down for the browser test"}`))
	}))
	t.Cleanup(receiver.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "flows.mjs")
	cmd.Env = append(os.Environ(), "SHIPD_URL="+env.URL(), "SHIPD_EMAIL="+email, "SHIPD_PASSWORD="+password,
		"WEBHOOK_URL="+receiver.URL+"/hooks", "ARTIFACTS="+artifacts, "CHROMIUM="+chromium)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	steps := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Step, Error, URL, Screenshot string
			OK, Done                     bool
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			t.Logf("flows: %s", sc.Text())
			continue
		}
		switch {
		case line.Done:
		case line.OK:
			steps++
			t.Logf("step %s: ok (%s)", line.Step, line.Screenshot)
		default:
			t.Errorf("step %s failed at %s: %s\nscreenshot: %s", line.Step, line.URL, line.Error, line.Screenshot)
		}
	}
	if err != nil {
		t.Fatalf("flows.mjs: %v\n%s\nservice log tail:\n%s", err, stderr.String(), tail(env.Logs.String(), 20))
	}
	if !strings.Contains(string(out), `"done":true`) || steps == 0 {
		t.Fatalf("flows.mjs ended without finishing:\n%s", out)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
