//go:build faults

package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"shipd/platform/apptest"
)

// instance is one `shipd serve` process, as an operator runs it.
type instance struct {
	*apptest.Process
	name string
	url  string
	dsn  string
	env  []string // its extra environment, for a restart
}

// serveEnv is what every instance of the suite runs with. The receiver
// listens on loopback, which webhooks refuse unless allowed; a 2 s webhook
// timeout makes the delivery lease 7 s (timeout + 5 s), so work a killed
// instance had claimed is taken again within seconds.
func serveEnv(dsn, addr string, extra []string) []string {
	env := append(os.Environ(), "DATABASE_URL="+dsn, "HTTP_ADDR="+addr, "LOG_LEVEL=warn",
		"SECRET_KEY=fault-suite-secret-key-0123456789abcdef", "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "WEBHOOK_TIMEOUT=2s")
	return append(env, extra...) // later values win
}

// startInstance runs `shipd serve` on a free port and waits for /healthz.
// The process is killed when the test ends, whatever happened.
func startInstance(t *testing.T, name, dsn string, extraEnv ...string) *instance {
	t.Helper()
	return startInstanceAt(t, name, dsn, apptest.FreeAddr(t), extraEnv...)
}

// restart starts the process again, as it was started, on the same
// address (a proxy in front keeps routing to it).
func (in *instance) restart(t *testing.T) *instance {
	t.Helper()
	in.Kill()
	return startInstanceAt(t, in.name, in.dsn, strings.TrimPrefix(in.url, "http://"), in.env...)
}

func startInstanceAt(t *testing.T, name, dsn, addr string, extraEnv ...string) *instance {
	t.Helper()
	in := launchInstance(t, name, dsn, addr, extraEnv...)
	in.AwaitHealthy(t, in.url)
	return in
}

// launchInstance starts `shipd serve` on addr and returns at once: an
// instance armed to die at a failpoint may die before it serves.
func launchInstance(t *testing.T, name, dsn, addr string, extraEnv ...string) *instance {
	t.Helper()
	cmd := exec.Command(binary, "serve")
	cmd.Env = serveEnv(dsn, addr, extraEnv)
	// If the test binary itself dies (a Ctrl-C, a closed pipe), its shipd
	// processes die with it instead of serving on, orphaned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in := &instance{Process: apptest.StartProcess(t, name, cmd), name: name, url: "http://" + addr, dsn: dsn, env: extraEnv}
	t.Cleanup(func() {
		in.Kill()
		if t.Failed() {
			t.Logf("last lines of %s's log:\n%s", name, in.Tail(30))
		}
	})
	return in
}

// account is an API account of the scenario and its key.
type account struct {
	id, key string
}

var accountIDPattern = regexp.MustCompile(`for account \S+ \((\S+)\)`)

// newAccount creates an enterprise account with its own rate limit through
// `shipd keys create`, as an operator does.
func newAccount(t *testing.T, dsn, name string, rateLimit int) account {
	t.Helper()
	cmd := exec.Command(binary, "keys", "create", "--account", name, "--plan", "enterprise", "--rate-limit", fmt.Sprint(rateLimit))
	cmd.Env = serveEnv(dsn, "127.0.0.1:0", nil)
	out := strings.TrimSpace(apptest.CommandOutput(t, cmd))
	m := accountIDPattern.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no account id in:\n%s", out)
	}
	return account{id: m[1], key: out[strings.LastIndex(out, "\n")+1:]}
}

// testClock is the file SHIPD_TEST_CLOCK_FILE names: shipd's clock is the
// wall clock plus the duration written in it (clock.FromFile).
type testClock struct {
	path string
}

func newTestClock(t *testing.T) testClock {
	t.Helper()
	c := testClock{path: filepath.Join(workDir, "clock-"+t.Name())}
	c.set(t, 0)
	t.Cleanup(func() { os.Remove(c.path) })
	return c
}

func (c testClock) env() string { return "SHIPD_TEST_CLOCK_FILE=" + c.path }

// set writes the offset; a rename makes the change atomic, so shipd never
// reads half a duration.
func (c testClock) set(t *testing.T, offset time.Duration) {
	t.Helper()
	tmp := c.path + ".new"
	if err := os.WriteFile(tmp, []byte(offset.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		t.Fatal(err)
	}
}

// setTo moves shipd's clock so that it reads at now. shipd re-reads the
// file within clock.fileRefresh (20 ms).
func (c testClock) setTo(t *testing.T, at time.Time) {
	t.Helper()
	c.set(t, at.Sub(time.Now()))
}
