package shipd_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// The tests meet a real shipd: SHIPD_BIN is the built binary and
// DATABASE_URL a PostgreSQL server on which TestMain creates a database of
// its own (make test-sdk-go sets both). Nothing here is a mock of shipd.
var (
	shipdURL   string // http://127.0.0.1:port
	apiKey     string // an account with room to spare under its rate limit
	limitedKey string // an account of 5 requests a minute, for real 429s
)

const secretKey = "sdk-go-test-secret-key-0123456789abcdef"

func TestMain(m *testing.M) {
	flag.Parse()
	bin, dsn := os.Getenv("SHIPD_BIN"), os.Getenv("DATABASE_URL")
	if bin == "" || dsn == "" {
		fmt.Fprintln(os.Stderr, "sdk/go tests need SHIPD_BIN (a built shipd) and DATABASE_URL (a PostgreSQL server): run `make test-sdk-go`")
		os.Exit(1)
	}
	code, err := run(m, bin, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdk/go test setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M, bin, serverDSN string) (int, error) {
	dbName := "sdk_go_" + strings.ToLower(rand.Text()[:10])
	admin, err := sql.Open("postgres", serverDSN)
	if err != nil {
		return 0, err
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + dbName); err != nil {
		return 0, fmt.Errorf("create database: %w", err)
	}
	defer func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + dbName + " WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "drop database:", err)
		}
	}()
	dsn, err := withDatabase(serverDSN, dbName)
	if err != nil {
		return 0, err
	}
	addr, err := freeAddr()
	if err != nil {
		return 0, err
	}
	env := append(os.Environ(), "DATABASE_URL="+dsn, "SECRET_KEY="+secretKey, "HTTP_ADDR="+addr,
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "SANDBOX_TIME_SCALE=3600",
		"WORKER_POLL_INTERVAL=100ms", "MESSAGE_POLL_INTERVAL=100ms", "LOG_LEVEL=warn")
	if apiKey, err = createKey(bin, env, "sdk-go", 1_000_000); err != nil {
		return 0, err
	}
	if limitedKey, err = createKey(bin, env, "sdk-go-limited", 5); err != nil {
		return 0, err
	}
	serve := exec.Command(bin, "serve")
	serve.Env = env
	serve.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	logs, err := os.CreateTemp("", "shipd-sdk-go-*.log")
	if err != nil {
		return 0, err
	}
	defer os.Remove(logs.Name())
	serve.Stdout, serve.Stderr = logs, logs
	if err := serve.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = serve.Process.Kill()
		_ = serve.Wait()
	}()
	shipdURL = "http://" + addr
	if err := awaitServing(shipdURL, 30*time.Second); err != nil {
		return 0, fmt.Errorf("%w; its log:\n%s", err, tail(logs.Name()))
	}
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" {
		code = checkEveryOperationCalled()
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "shipd's log:\n%s\n", tail(logs.Name()))
	}
	return code, nil
}

// createKey runs `shipd keys create` as an operator does; the key is the
// last line it prints.
func createKey(bin string, env []string, account string, rateLimit int) (string, error) {
	cmd := exec.Command(bin, "keys", "create", "--account", account, "--plan", "enterprise", "--rate-limit", fmt.Sprint(rateLimit))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("keys create: %w\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(key, "shp_") {
		return "", fmt.Errorf("keys create printed no key:\n%s", out)
	}
	return key, nil
}

// withDatabase points dsn, in either of PostgreSQL's forms (a URL, or
// key=value words as with-postgres gives), at the database name.
func withDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	dbname := regexp.MustCompile(`dbname=('(\\.|[^'])*'|\S+)`)
	if dbname.MatchString(dsn) {
		return dbname.ReplaceAllLiteralString(dsn, "dbname="+name), nil
	}
	return dsn + " dbname=" + name, nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// awaitServing waits until shipd answers its document, which it serves
// without a key once its routes are up.
func awaitServing(base string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/openapi.json", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("shipd did not serve within %s", limit)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(io.LimitReader(f, 16<<20))
	for s.Scan() {
		lines = append(lines, s.Text())
		if len(lines) > 40 {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
