//go:build faults

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// localPortOwners maps the local TCP ports of the given processes' sockets
// to the process, from /proc (Linux). The receiver sees each attempt's
// source port; this tells which shipd instance made it, since the webhook
// sender keeps its connections open.
func localPortOwners(pids map[int]string) map[int]string {
	inodes := map[string]string{} // socket inode → process name
	for pid, name := range pids {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			target, err := os.Readlink(fd)
			if err == nil && strings.HasPrefix(target, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = name
			}
		}
	}
	owners := map[int]string{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 {
				continue
			}
			name, ok := inodes[f[9]]
			if !ok {
				continue
			}
			_, portHex, _ := strings.Cut(f[1], ":")
			if port, err := strconv.ParseInt(portHex, 16, 32); err == nil {
				owners[int(port)] = name
			}
		}
	}
	return owners
}
