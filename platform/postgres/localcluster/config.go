package localcluster

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Config says where the cluster lives. Zero values get defaults (see withDefaults).
type Config struct {
	Dir      string                           // data root, e.g. ".data/postgres"; made absolute. Cluster data in Dir/data, unix socket in Dir/run, log in Dir/postgres.log
	Port     int                              // default 5433; used only for the unix socket file name (.s.PGSQL.<port>); the cluster listens on NO TCP address
	Database string                           // default "shipd"; created when missing
	BinDir   string                           // default: discovered (PG_BINDIR, pg_config, /usr/lib/postgresql/*/bin, PATH)
	Logf     func(format string, args ...any) // progress messages; default no-op
	// MaxConnections is the server's max_connections when this call starts
	// it; default 200. (The fault suite runs a cluster of PostgreSQL's own
	// default, 100, to prove three instances fit in it.)
	MaxConnections int
}

const (
	defaultDir      = ".data/postgres"
	defaultPort     = 5433
	defaultDatabase = "shipd"
	superuser       = "postgres"

	// The kernel's sun_path holds 108 bytes including the terminating NUL;
	// postgres refuses longer socket paths with a less helpful message.
	maxSocketPath = 107
)

// withDefaults fills zero values and makes Dir absolute, because the DSN host
// must be an absolute socket directory and a relative Dir would change
// meaning with the working directory of each shipd process.
func (c Config) withDefaults() (Config, error) {
	if c.Dir == "" {
		c.Dir = defaultDir
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return c, fmt.Errorf("localcluster: resolve dir %q: %w", c.Dir, err)
	}
	c.Dir = abs
	if c.Port == 0 {
		c.Port = defaultPort
	}
	if c.Port < 1 || c.Port > 65535 {
		return c, fmt.Errorf("localcluster: port %d out of range", c.Port)
	}
	if c.Database == "" {
		c.Database = defaultDatabase
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if sock := socketPath(c.runDir(), c.Port); len(sock) > maxSocketPath {
		return c, fmt.Errorf("localcluster: unix socket path %s is %d bytes, longer than the %d the OS allows; use a shorter data dir", sock, len(sock), maxSocketPath)
	}
	return c, nil
}

func (c Config) dataDir() string  { return filepath.Join(c.Dir, "data") }
func (c Config) runDir() string   { return filepath.Join(c.Dir, "run") }
func (c Config) logFile() string  { return filepath.Join(c.Dir, "postgres.log") }
func (c Config) lockFile() string { return filepath.Join(c.Dir, ".lock") }

// initDir is where initdb writes before the result is renamed to dataDir, so
// an interrupted initdb never leaves a half-built data dir that blocks reuse.
func (c Config) initDir() string { return filepath.Join(c.Dir, "data.init") }

func socketPath(dir string, port int) string {
	return filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(port))
}

// buildDSN uses lib/pq's key=value form because URLs cannot carry a socket
// directory as host without awkward escaping.
func buildDSN(socketDir string, port int, db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		dsnQuote(socketDir), port, superuser, dsnQuote(db))
}

func dsnQuote(v string) string {
	if v != "" && !strings.ContainsAny(v, " '\\\t\n\r") {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(v) + "'"
}
