package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// notZombie catches a postmaster that was killed but not yet reaped: pg_ctl
// status (and the server's own stale-lock check) still see its PID as alive,
// so reusing it fails to connect and starting fails on the lock file. Slow
// reapers are common as PID 1 in containers, so waiting briefly is enough;
// postmaster.pid is never removed by hand.
func (c *cluster) notZombie(ctx context.Context) (bool, error) {
	pid := postmasterPID(c.cfg.dataDir())
	if pid <= 0 || !isZombie(pid) {
		return true, nil
	}
	c.cfg.Logf("PostgreSQL postmaster (PID %d) in %s has exited; waiting for it to be reaped", pid, c.cfg.dataDir())
	deadline := time.Now().Add(15 * time.Second)
	for isZombie(pid) {
		if time.Now().After(deadline) {
			return false, fmt.Errorf("localcluster: the postmaster (PID %d) of %s died but its parent process has not reaped it, so PostgreSQL cannot restart; run shipd under an init that reaps children (e.g. docker run --init)", pid, c.cfg.dataDir())
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return false, nil
}

func postmasterPID(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

// isZombie reads the state from /proc; where /proc is missing the answer is
// "no", leaving pg_ctl's verdict in charge.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may contain spaces
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
