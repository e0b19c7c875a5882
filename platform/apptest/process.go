package apptest

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// FreeAddr returns a loopback address nobody listens on now, for a server
// that is told its address rather than handed a listener (a shipd process,
// nginx).
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// CommandOutput runs cmd to its end, as an operator at a shell would, and
// returns its standard output; a command that does not exit 0 fails the
// test with its standard error.
func CommandOutput(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(append([]string{filepath.Base(cmd.Args[0])}, cmd.Args[1:]...), " "), err, stderr.String())
	}
	return stdout.String()
}

// Process is the shipd binary (`shipd serve`) running as a process of its
// own, as an operator runs it, unlike an Instance, which runs in the test's
// process. Its standard error, the JSON log, is kept line by line.
type Process struct {
	Cmd     *exec.Cmd
	name    string
	exited  chan struct{} // closed when the process is gone and its log read
	waitErr error         // what Wait said, once exited is closed

	mu    sync.Mutex
	lines []string
	gone  bool // Wait returned
}

// StartProcess starts cmd, named name in failures, and reads its standard
// error until it exits. It is killed when the test ends, whatever happened.
func StartProcess(t testing.TB, name string, cmd *exec.Cmd) *Process {
	t.Helper()
	p := &Process{Cmd: cmd, name: name, exited: make(chan struct{})}
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
			p.mu.Lock()
			p.lines = append(p.lines, s.Text())
			p.mu.Unlock()
		}
		// A line past the buffer ends the scan; the rest is still read, or
		// the process would block on a full pipe.
		_, _ = io.Copy(io.Discard, pipe)
		// Wait closes the pipe, so it comes after the last read.
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr, p.gone = err, true
		p.mu.Unlock()
		close(p.exited)
	}()
	t.Cleanup(p.Kill)
	return p
}

// AwaitHealthy polls url's /healthz, once the process has said it serves
// on url, until it answers; the test fails when the process exits first or
// 30 s pass.
func (p *Process) AwaitHealthy(t testing.TB, url string) {
	t.Helper()
	// FreeAddr's port may be taken by a test beside this one before shipd
	// binds it: /healthz then answers for another server. shipd says where
	// it serves once it listens, and only then is the answer its own.
	serving := "serving on " + url
	deadline := time.Now().Add(30 * time.Second)
	for {
		if len(p.LogLines(serving)) > 0 {
			res, err := http.Get(url + "/healthz")
			if err == nil {
				res.Body.Close()
				return
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("%s exited at start:\n%s", p.name, p.Tail(30))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not serve /healthz on %s within 30 s:\n%s", p.name, url, p.Tail(30))
		}
		time.Sleep(20 * time.Millisecond) // between polls of /healthz
	}
}

// Exited is closed once the process is gone.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits for the process to end and returns how it ended, as
// exec.Cmd.Wait says it.
func (p *Process) Wait() error {
	<-p.exited
	return p.waitErr
}

// Kill sends SIGKILL (nothing is flushed, closed or recorded) and returns
// once the process is gone.
func (p *Process) Kill() {
	if !p.Running() {
		return
	}
	_ = p.Cmd.Process.Kill()
	<-p.exited
}

// Running reports whether the process is still the one started.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.gone
}

// LogLines returns the log lines that contain every one of parts.
func (p *Process) LogLines(parts ...string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
next:
	for _, l := range p.lines {
		for _, part := range parts {
			if !strings.Contains(l, part) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

// Tail returns the last n lines of the log.
func (p *Process) Tail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines[max(0, len(p.lines)-n):], "\n")
}

// Log returns the whole log.
func (p *Process) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}
