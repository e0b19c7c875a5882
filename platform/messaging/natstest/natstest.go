// Package natstest runs a real nats-server with JetStream for a test: on a
// private loopback port, its store in the test's temporary directory.
package natstest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// Server is one nats-server process of a test.
type Server struct {
	URL   string // nats://127.0.0.1:<port>
	bin   string
	port  int
	store string
	t     testing.TB
	cmd   *exec.Cmd
	log   *os.File
}

// Start starts nats-server (Debian's package; .ci/run installs it) with
// JetStream on, and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := serverBinary()
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &Server{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), bin: bin, port: port, store: filepath.Join(dir, "jetstream"), t: t}
	s.log, err = os.Create(filepath.Join(dir, "nats-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Kill(); s.log.Close() })
	s.Restart()
	return s
}

// Stop shuts the server down as an operator does (SIGINT: it flushes its
// state first); its JetStream store stays for Restart.
func (s *Server) Stop() { s.end(os.Interrupt) }

// Kill crashes the server (SIGKILL): what it had not flushed, a consumer's
// latest acknowledgements among it, is lost; its store stays for Restart.
func (s *Server) Kill() { s.end(os.Kill) }

func (s *Server) end(sig os.Signal) {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// Restart starts the server again on the same port and store.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.cmd = exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.store)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("starting nats-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("nats-server did not listen on %d within 10 s (log: %s)", s.port, s.log.Name())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serverBinary finds nats-server: on the PATH, or where Debian's package
// puts it (/usr/sbin, which a user's PATH may lack).
func serverBinary() (string, error) {
	if bin, err := exec.LookPath("nats-server"); err == nil {
		return bin, nil
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server", nil
	}
	return "", fmt.Errorf("nats-server is not installed: `apt-get install nats-server` (.ci/run installs it)")
}

// freePort asks the kernel for a loopback port nobody uses now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Messages reads every message the JetStream stream named stream keeps, in
// order; none when it does not exist yet.
func Messages(t testing.TB, url, stream string) []*nats.RawStreamMsg {
	t.Helper()
	conn, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	js, err := conn.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	info, err := js.StreamInfo(stream)
	if err != nil || info.State.Msgs == 0 {
		return nil
	}
	var out []*nats.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := js.GetMsg(stream, seq)
		if err != nil {
			t.Fatalf("message %d of %s: %v", seq, stream, err)
		}
		out = append(out, m)
	}
	return out
}
