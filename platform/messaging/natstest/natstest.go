// Package natstest runs a real nats-server with JetStream, for a test (on a
// private loopback port, its store in the test's temporary directory) or
// for the bench.
package natstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Server is one nats-server process of a test.
type Server struct {
	*Process
	t testing.TB
}

// Start starts nats-server (Debian's package; .ci/run installs it) with
// JetStream on, and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	p, err := Launch(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(); p.log.Close() })
	return &Server{Process: p, t: t}
}

// Restart starts the server again on the same port and store.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.Process.Restart(); err != nil {
		s.t.Fatal(err)
	}
}

// Process is a nats-server with JetStream, listening on a private loopback
// port, its store and log in a directory of its own.
type Process struct {
	URL   string // nats://127.0.0.1:<port>
	bin   string
	port  int
	store string
	cmd   *exec.Cmd
	log   *os.File
}

// Launch starts nats-server with JetStream, its store and log under dir;
// Stop or Kill ends it.
func Launch(dir string) (*Process, error) {
	bin, err := ServerBinary()
	if err != nil {
		return nil, err
	}
	// The free port may be taken by a test beside this one before the
	// server binds it; then it is tried again on another.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p := &Process{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), bin: bin, port: port, store: filepath.Join(dir, "jetstream")}
		if p.log, err = os.Create(filepath.Join(dir, "nats-server.log")); err != nil {
			return nil, err
		}
		err = p.Restart()
		if err == nil {
			return p, nil
		}
		p.log.Close()
		if !errors.Is(err, errPortTaken) || attempt == 5 {
			return nil, err
		}
	}
}

// Stop shuts the server down as an operator does (SIGINT: it flushes its
// state first); its JetStream store stays for Restart.
func (p *Process) Stop() { p.end(os.Interrupt) }

// Kill crashes the server (SIGKILL): what it had not flushed, a consumer's
// latest acknowledgements among it, is lost; its store stays for Restart.
func (p *Process) Kill() { p.end(os.Kill) }

func (p *Process) end(sig os.Signal) {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cmd = nil
}

// Restart starts the server again on the same port and store, once it has
// stopped, and returns when it listens.
func (p *Process) Restart() error {
	p.Stop()
	from, err := p.log.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(p.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(p.port), "-js", "-sd", p.store)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("starting nats-server: %w", err)
	}
	// Something answering on the port may be another test's server: this
	// one is listening once its log says so.
	listening := fmt.Sprintf("Listening for client connections on 127.0.0.1:%d", p.port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		log, _ := os.ReadFile(p.log.Name())
		log = log[min(int(from), len(log)):]
		switch {
		case bytes.Contains(log, []byte(listening)):
			return nil
		case bytes.Contains(log, []byte("address already in use")):
			p.Kill()
			return fmt.Errorf("nats-server on %d: %w", p.port, errPortTaken)
		case time.Now().After(deadline):
			return fmt.Errorf("nats-server did not listen on %d within 10 s (log: %s)", p.port, p.log.Name())
		}
		time.Sleep(20 * time.Millisecond) // between reads of its log
	}
}

// errPortTaken is a server that could not listen on its port.
var errPortTaken = errors.New("its port is taken")

// ServerBinary finds nats-server: on the PATH, or where Debian's package
// puts it (/usr/sbin, which a user's PATH may lack).
func ServerBinary() (string, error) {
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
func Messages(t testing.TB, url, stream string) []*jetstream.RawStreamMsg {
	t.Helper()
	conn, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	js, err := jetstream.New(conn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil
	}
	state := s.CachedInfo().State
	if state.Msgs == 0 {
		return nil
	}
	var out []*jetstream.RawStreamMsg
	for seq := state.FirstSeq; seq <= state.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("message %d of %s: %v", seq, stream, err)
		}
		out = append(out, m)
	}
	return out
}
