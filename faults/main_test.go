//go:build faults

package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"shipd/platform/postgres/localcluster"
)

// workDir holds the suite's shipd binary, its PostgreSQL cluster and the
// test clocks. It sits directly under /tmp on purpose: the cluster's unix
// socket path (workDir/pg/run/.s.PGSQL.5433) must fit in 107 bytes, which
// a long TMPDIR would break.
var (
	workDir string
	binary  string
)

func TestMain(m *testing.M) { os.Exit(runSuite(m)) }

func runSuite(m *testing.M) int {
	began := time.Now()
	dir, err := os.MkdirTemp("/tmp", "sf")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Root runs the cluster as the postgres OS user, who must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		return 1
	}
	workDir = dir
	binary = filepath.Join(dir, "shipd")
	if out, err := exec.Command("go", "build", "-o", binary, "shipd/cmd/shipd").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "faults: building shipd: %v\n%s", err, out)
		return 1
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := localcluster.Stop(ctx, clusterConfig("")); err != nil {
			fmt.Fprintln(os.Stderr, "faults: stopping PostgreSQL:", err)
		}
	}()
	code := m.Run()
	fmt.Printf("fault suite: %s in all (build, cluster, scenarios)\n", time.Since(began).Round(100*time.Millisecond))
	return code
}
