//go:build faults

package faults

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// instance is one `shipd serve` process, as an operator runs it.
type instance struct {
	name   string
	url    string
	dsn    string
	env    []string // its extra environment, for a restart
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process is gone

	mu    sync.Mutex
	lines []string // its standard error (JSON logs), line by line
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
	return startInstanceAt(t, name, dsn, freeAddr(t), extraEnv...)
}

// restart starts the process again, as it was started, on the same
// address (a proxy in front keeps routing to it).
func (in *instance) restart(t *testing.T) *instance {
	t.Helper()
	in.kill()
	return startInstanceAt(t, in.name, in.dsn, strings.TrimPrefix(in.url, "http://"), in.env...)
}

func startInstanceAt(t *testing.T, name, dsn, addr string, extraEnv ...string) *instance {
	t.Helper()
	cmd := exec.Command(binary, "serve")
	cmd.Env = serveEnv(dsn, addr, extraEnv)
	// If the test binary itself dies (a Ctrl-C, a closed pipe), its shipd
	// processes die with it instead of serving on, orphaned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in := &instance{name: name, url: "http://" + addr, dsn: dsn, env: extraEnv, cmd: cmd, exited: make(chan struct{})}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s := bufio.NewScanner(pipe)
		s.Buffer(make([]byte, 64<<10), 1<<20)
		for s.Scan() {
			in.mu.Lock()
			in.lines = append(in.lines, s.Text())
			in.mu.Unlock()
		}
		_ = cmd.Wait()
		close(in.exited)
	}()
	t.Cleanup(func() {
		in.kill()
		if t.Failed() {
			t.Logf("last lines of %s's log:\n%s", name, in.tail(30))
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(in.url + "/healthz")
		if err == nil {
			res.Body.Close()
			return in
		}
		select {
		case <-in.exited:
			t.Fatalf("%s exited at start:\n%s", name, in.tail(30))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer /healthz within 30 s:\n%s", name, in.tail(30))
		}
		time.Sleep(20 * time.Millisecond) // between polls of /healthz
	}
}

// kill sends SIGKILL: nothing is flushed, closed or recorded.
func (in *instance) kill() {
	select {
	case <-in.exited:
		return
	default:
	}
	_ = in.cmd.Process.Kill()
	<-in.exited
}

// running reports whether the process is still the one started.
func (in *instance) running() bool {
	select {
	case <-in.exited:
		return false
	default:
		return true
	}
}

// logLines returns the log lines that contain every one of parts.
func (in *instance) logLines(parts ...string) []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []string
next:
	for _, l := range in.lines {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

func (in *instance) tail(n int) string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return strings.Join(in.lines[max(0, len(in.lines)-n):], "\n")
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
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
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("shipd keys create: %v\n%s", err, stderr.String())
	}
	out := strings.TrimSpace(stdout.String())
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
