package localcluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Ensure makes the cluster exist and run, creates Database if missing, and
// returns a lib/pq DSN. Several processes may call it at once (shipd serve
// and shipd keys create); an flock on Dir/.lock makes the later ones reuse
// what the first started.
func Ensure(ctx context.Context, cfg Config) (dsn string, err error) {
	return ensure(ctx, cfg, false)
}

// Stop stops the cluster at cfg.Dir if it runs. A fast shutdown ends client
// sessions instead of waiting for them, which is what "stop" means to a user.
func Stop(ctx context.Context, cfg Config) error {
	return stop(ctx, cfg, "fast")
}

// Crash stops the cluster as a power cut would, for fault tests (pg_ctl
// stop -m immediate): no checkpoint, and WAL not yet written out is lost,
// so commits that did not wait for the flush may be gone after the restart.
func Crash(ctx context.Context, cfg Config) error {
	return stop(ctx, cfg, "immediate")
}

// cluster bundles what every pg_ctl call needs.
type cluster struct {
	cfg  Config
	bins binaries
	su   *serverUser
}

func newCluster(ctx context.Context, cfg Config) (*cluster, error) {
	su, err := currentServerUser()
	if err != nil {
		return nil, fmt.Errorf("localcluster: %w", err)
	}
	bins, err := findBinaries(ctx, cfg.BinDir, cfg.dataDir())
	if err != nil {
		return nil, fmt.Errorf("localcluster: %w", err)
	}
	return &cluster{cfg: cfg, bins: bins, su: su}, nil
}

// ensure is Ensure with a switch for test-speed settings (unsafe), which
// must never reach a persistent cluster: they trade crash safety for speed.
func ensure(ctx context.Context, cfg Config, unsafe bool) (string, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return "", err
	}
	c, err := newCluster(ctx, cfg)
	if err != nil {
		return "", err
	}
	// Parents may be shared with other files (e.g. .data), so they get normal
	// permissions; only Dir itself is private.
	if err := os.MkdirAll(filepath.Dir(cfg.Dir), 0o755); err != nil {
		return "", fmt.Errorf("localcluster: %w", err)
	}
	if err := c.su.checkReachable(cfg.Dir); err != nil {
		return "", fmt.Errorf("localcluster: %w", err)
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return "", fmt.Errorf("localcluster: %w", err)
	}
	unlock, err := lockDir(ctx, cfg.lockFile(), cfg.Logf)
	if err != nil {
		return "", fmt.Errorf("localcluster: %w", err)
	}
	defer unlock()

	// pg_ctl status reads Dir/data as the server user, so Dir must be theirs first.
	if err := c.su.chown(cfg.Dir, false); err != nil {
		return "", fmt.Errorf("localcluster: %w", err)
	}
	// A second round covers a server that died between pg_ctl status and
	// our connection attempt.
	for attempt := 0; ; attempt++ {
		running, err := c.running(ctx)
		if err != nil {
			return "", err
		}
		if running {
			cfg.Logf("reusing PostgreSQL already running in %s", cfg.dataDir())
		} else {
			if err := c.initdb(ctx, unsafe); err != nil {
				return "", err
			}
			if err := c.start(ctx, unsafe); err != nil {
				return "", err
			}
		}
		host, port := c.socket()
		err = createDatabase(ctx, host, port, cfg.Database, cfg.Logf, c.running)
		if errors.Is(err, errServerGone) && attempt == 0 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("localcluster: %w", err)
		}
		return buildDSN(host, port, cfg.Database), nil
	}
}

func stop(ctx context.Context, cfg Config, mode string) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.dataDir()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	c, err := newCluster(ctx, cfg)
	if err != nil {
		return err
	}
	unlock, err := lockDir(ctx, cfg.lockFile(), cfg.Logf)
	if err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	defer unlock()
	running, err := c.running(ctx)
	if err != nil || !running {
		return err
	}
	cfg.Logf("stopping PostgreSQL in %s", cfg.dataDir())
	out, err := c.su.command(ctx, cfg.Dir, c.bins.pgCtl, "stop", "-D", cfg.dataDir(), "-m", mode, "-w", "-t", "60").CombinedOutput()
	if err != nil {
		return cmdError("pg_ctl stop", err, out)
	}
	return nil
}

// running trusts pg_ctl status (exit 0 = running, 3 = not running, 4 = no
// data dir) rather than postmaster.pid alone, which survives crashes.
func (c *cluster) running(ctx context.Context) (bool, error) {
	if _, err := os.Stat(filepath.Join(c.cfg.dataDir(), "PG_VERSION")); err != nil {
		return false, nil
	}
	out, err := c.su.command(ctx, c.cfg.Dir, c.bins.pgCtl, "status", "-D", c.cfg.dataDir()).CombinedOutput()
	if err == nil {
		return c.notZombie(ctx)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && (ee.ExitCode() == 3 || ee.ExitCode() == 4) {
		return false, nil
	}
	return false, cmdError("pg_ctl status", err, out)
}

// initdb builds into a side directory and renames it into place, so a
// killed initdb leaves nothing that looks like a cluster.
func (c *cluster) initdb(ctx context.Context, unsafe bool) error {
	data := c.cfg.dataDir()
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err == nil {
		return nil
	}
	if err := os.Remove(data); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("localcluster: %s exists but is not a PostgreSQL data directory (no PG_VERSION); move it away: %w", data, err)
	}
	tmp := c.cfg.initDir()
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	c.cfg.Logf("initialising PostgreSQL cluster in %s", data)
	args := []string{"-D", tmp, "-U", superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-instructions"}
	if unsafe {
		args = append(args, "--no-sync")
	}
	out, err := c.su.command(ctx, c.cfg.Dir, c.bins.initdb, args...).CombinedOutput()
	if err != nil {
		os.RemoveAll(tmp)
		return cmdError("initdb", err, out)
	}
	if err := os.Rename(tmp, data); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	return nil
}

// start passes all settings on the command line so they follow Dir and
// Port from the Config, and postgresql.conf stays initdb's.
func (c *cluster) start(ctx context.Context, unsafe bool) error {
	cfg := c.cfg
	if err := os.MkdirAll(cfg.runDir(), 0o700); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	for _, p := range []string{cfg.dataDir(), cfg.runDir(), cfg.logFile(), cfg.lockFile()} {
		if err := c.su.chown(p, true); err != nil {
			return fmt.Errorf("localcluster: %w", err)
		}
	}
	// The server refuses a data dir others can read.
	if err := os.Chmod(cfg.dataDir(), 0o700); err != nil {
		return fmt.Errorf("localcluster: %w", err)
	}
	settings := []string{
		"listen_addresses=''",
		"unix_socket_directories=" + shellQuote(cfg.runDir()),
		"port=" + strconv.Itoa(cfg.Port),
		"max_connections=" + strconv.Itoa(cmp.Or(cfg.MaxConnections, 200)),
	}
	if unsafe {
		settings = append(settings, "fsync=off", "synchronous_commit=off", "full_page_writes=off")
	}
	// pg_ctl hands -o to /bin/sh, hence the shell quoting above.
	opts := "-c " + strings.Join(settings, " -c ")
	cfg.Logf("starting PostgreSQL in %s (socket %s, log %s)", cfg.dataDir(), socketPath(cfg.runDir(), cfg.Port), cfg.logFile())
	out, err := c.su.command(ctx, cfg.Dir, c.bins.pgCtl,
		"start", "-D", cfg.dataDir(), "-l", cfg.logFile(), "-w", "-t", "60", "-o", opts).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w\n--- last lines of %s ---\n%s", cmdError("pg_ctl start", err, out), cfg.logFile(), tail(cfg.logFile(), 20))
	}
	return nil
}

// socket reads where the running server actually listens: a cluster started
// by another process with a different Port must still be reachable.
func (c *cluster) socket() (dir string, port int) {
	dir, port = c.cfg.runDir(), c.cfg.Port
	b, err := os.ReadFile(filepath.Join(c.cfg.dataDir(), "postmaster.pid"))
	if err != nil {
		return dir, port
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 {
		return dir, port
	}
	if p, err := strconv.Atoi(strings.TrimSpace(lines[3])); err == nil && p > 0 {
		if p != port {
			c.cfg.Logf("PostgreSQL in %s runs with port %d, not the configured %d; using %d", c.cfg.dataDir(), p, port, p)
		}
		port = p
	}
	if d := strings.TrimSpace(lines[4]); filepath.IsAbs(d) {
		dir = d
	}
	return dir, port
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func cmdError(what string, err error, out []byte) error {
	msg := strings.TrimSpace(lastLines(string(out), 20))
	if msg == "" {
		return fmt.Errorf("localcluster: %s: %w", what, err)
	}
	return fmt.Errorf("localcluster: %s: %w\n%s", what, err, msg)
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return lastLines(string(b), n)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
