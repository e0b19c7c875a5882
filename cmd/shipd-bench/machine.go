package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/jmoiron/sqlx"
)

// machine names what the figures were measured on: they hold for that
// machine only.
func machine() string {
	return fmt.Sprintf("%d cores (%s), %s, Linux %s, Go %s", runtime.NumCPU(), cpuModel(), memTotal(), kernel(), runtime.Version())
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
		}
	}
	return "unknown CPU"
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown memory"
	}
	var kb int64
	fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
	return fmt.Sprintf("%.0f GiB", float64(kb)/1024/1024)
}

// loadAverage is the 1-minute load average: the machine is shared, so what
// else ran is part of the figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

// storage names the file system a path lives on (its longest mount point),
// since a durable commit waits for that device.
func storage(path string) string {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return "unknown storage"
	}
	best, desc := "", "unknown storage"
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || len(f[1]) <= len(best) {
			continue
		}
		if under := f[1] == "/" || path == f[1] || strings.HasPrefix(path, f[1]+"/"); under {
			best, desc = f[1], fmt.Sprintf("%s on %s", f[2], f[0])
		}
	}
	return desc
}

// serverSettingNames decide what a commit costs and how much fits in memory.
var serverSettingNames = []string{"server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers", "max_connections"}

// serverSettings reads them from the server the bench measures, as it runs.
func serverSettings(ctx context.Context, db *sqlx.DB) (string, error) {
	var parts []string
	for _, name := range serverSettingNames {
		var v string
		if err := db.GetContext(ctx, &v, `SELECT current_setting($1)`, name); err != nil {
			return "", fmt.Errorf("reading setting %s: %w", name, err)
		}
		parts = append(parts, fmt.Sprintf("`%s` %s", name, v))
	}
	return strings.Join(parts, ", "), nil
}
