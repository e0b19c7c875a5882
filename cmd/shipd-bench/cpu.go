package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// the bench runs on (the kernel fixes it for userspace on x86 and arm).
const clockTick = 10 * time.Millisecond

// cpuReading is the CPU time used so far by the shipd processes, by the
// PostgreSQL cluster (the postmaster, its live children, and the children it
// has reaped) and by the bench's own process, and the machine's busy and
// total time from /proc/stat (every process, NATS included).
type cpuReading struct {
	shipd, postgres, bench time.Duration
	busy, total            time.Duration
}

// readCPU reads the CPU used by the shipd processes pids and the cluster
// whose postmaster is postmaster.
func readCPU(pids []int, postmaster int) cpuReading {
	var r cpuReading
	for _, pid := range pids {
		if s, ok := procStat(pid); ok {
			r.shipd += s.utime + s.stime
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		s, ok := procStat(pid)
		switch {
		case !ok:
		case pid == postmaster:
			r.postgres += s.utime + s.stime + s.cutime + s.cstime
		case s.ppid == postmaster:
			r.postgres += s.utime + s.stime
		}
	}
	r.bench = processCPU()
	r.busy, r.total = machineCPU()
	return r
}

// since is what was used between before and r.
func (r cpuReading) since(before cpuReading) cpuReading {
	return cpuReading{shipd: r.shipd - before.shipd, postgres: r.postgres - before.postgres, bench: r.bench - before.bench,
		busy: r.busy - before.busy, total: r.total - before.total}
}

// perWrite is the CPU each of n writes cost, for the report: shipd,
// PostgreSQL, the bench, and the whole machine's busy time, and how busy
// the machine was.
func (r cpuReading) perWrite(n int) string {
	if n == 0 || r.total == 0 {
		return "-"
	}
	each := func(d time.Duration) string {
		return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)/float64(n))
	}
	return fmt.Sprintf("%s / %s / %s / %s ms; %.0f %%", each(r.shipd), each(r.postgres), each(r.bench), each(r.busy),
		100*float64(r.busy)/float64(r.total))
}

// busyPerWrite is the machine's busy time per write.
func (r cpuReading) busyPerWrite(n int) time.Duration {
	if n == 0 {
		return 0
	}
	return r.busy / time.Duration(n)
}

type procTimes struct {
	ppid                         int
	utime, stime, cutime, cstime time.Duration
}

// procStat reads a process's parent and CPU times from /proc/<pid>/stat.
func procStat(pid int) (procTimes, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procTimes{}, false
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// the last ')'. After it: state (3), ppid (4), ... utime (14), stime
	// (15), cutime (16), cstime (17).
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return procTimes{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return procTimes{}, false
	}
	n := func(k int) time.Duration {
		v, _ := strconv.ParseInt(f[k-3], 10, 64)
		return time.Duration(v) * clockTick
	}
	ppid, _ := strconv.Atoi(f[1])
	return procTimes{ppid: ppid, utime: n(14), stime: n(15), cutime: n(16), cstime: n(17)}, true
}

// machineCPU is the busy and total time of every CPU from /proc/stat's
// first line (idle and iowait are not busy).
func machineCPU() (busy, total time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for k := 1; k < len(f) && k <= 8; k++ {
		v, _ := strconv.ParseInt(f[k], 10, 64)
		total += time.Duration(v) * clockTick
		if k != 4 && k != 5 { // idle, iowait
			busy += time.Duration(v) * clockTick
		}
	}
	return busy, total
}

// postmasterPID is the process id of the server db is connected to: the
// parent of its backend.
func postmasterPID(ctx context.Context, db *sqlx.DB) (int, error) {
	var backend int
	if err := db.GetContext(ctx, &backend, `SELECT pg_backend_pid()`); err != nil {
		return 0, err
	}
	s, ok := procStat(backend)
	if !ok {
		return 0, fmt.Errorf("PostgreSQL's backend %d is not a process of this machine", backend)
	}
	return s.ppid, nil
}
