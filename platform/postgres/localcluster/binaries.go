package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// binaries are the server programs the cluster needs. pg_ctl locates postgres
// next to itself, so all three normally come from one directory.
type binaries struct {
	initdb, pgCtl, postgres string
}

var errNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found: install the PostgreSQL server, e.g. apt-get install postgresql, or set DATABASE_URL")

// debianRoot is where Debian/Ubuntu install versioned server binaries, none
// of which are on PATH there.
const debianRoot = "/usr/lib/postgresql"

// findBinaries prefers explicit choices, then the binaries matching an
// existing data dir's major version (a newer server cannot start an older
// cluster), then the usual install locations.
func findBinaries(ctx context.Context, binDir, dataDir string) (binaries, error) {
	if binDir != "" {
		return fromDir(binDir, "BinDir")
	}
	if env := os.Getenv("PG_BINDIR"); env != "" {
		return fromDir(env, "PG_BINDIR")
	}
	if v, err := os.ReadFile(filepath.Join(dataDir, "PG_VERSION")); err == nil {
		dir := filepath.Join(debianRoot, strings.TrimSpace(string(v)), "bin")
		if b, err := fromDir(dir, ""); err == nil {
			return b, nil
		}
	}
	if pgConfig, err := exec.LookPath("pg_config"); err == nil {
		out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
		if err == nil {
			if b, err := fromDir(strings.TrimSpace(string(out)), ""); err == nil {
				return b, nil
			}
		}
	}
	for _, dir := range debianBinDirs() {
		if b, err := fromDir(dir, ""); err == nil {
			return b, nil
		}
	}
	var b binaries
	var err error
	for _, p := range []struct {
		name string
		dst  *string
	}{{"initdb", &b.initdb}, {"pg_ctl", &b.pgCtl}, {"postgres", &b.postgres}} {
		if *p.dst, err = exec.LookPath(p.name); err != nil {
			return binaries{}, errNoBinaries
		}
	}
	return b, nil
}

// fromDir names the source in errors so a wrong explicit setting is obvious.
func fromDir(dir, source string) (binaries, error) {
	b := binaries{
		initdb:   filepath.Join(dir, "initdb"),
		pgCtl:    filepath.Join(dir, "pg_ctl"),
		postgres: filepath.Join(dir, "postgres"),
	}
	for _, p := range []string{b.initdb, b.pgCtl, b.postgres} {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			if source == "" {
				return binaries{}, errNoBinaries
			}
			return binaries{}, fmt.Errorf("%s=%s: no executable %s there: %w", source, dir, filepath.Base(p), errNoBinaries)
		}
	}
	return b, nil
}

// debianBinDirs lists versioned bin dirs, highest version first; versions
// compare numerically so 10 sorts above 9.6.
func debianBinDirs() []string {
	entries, err := os.ReadDir(debianRoot)
	if err != nil {
		return nil
	}
	type ver struct {
		nums []int
		dir  string
	}
	var vs []ver
	for _, e := range entries {
		var nums []int
		ok := true
		for _, part := range strings.Split(e.Name(), ".") {
			n, err := strconv.Atoi(part)
			if err != nil {
				ok = false
				break
			}
			nums = append(nums, n)
		}
		if ok {
			vs = append(vs, ver{nums, filepath.Join(debianRoot, e.Name(), "bin")})
		}
	}
	sort.Slice(vs, func(i, j int) bool {
		a, b := vs[i].nums, vs[j].nums
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] > b[k]
			}
		}
		return len(a) > len(b)
	})
	dirs := make([]string, len(vs))
	for i, v := range vs {
		dirs[i] = v.dir
	}
	return dirs
}
