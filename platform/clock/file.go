package clock

import (
	"os"
	"strings"
	"sync"
	"time"
)

// File is the real clock plus an offset read from a file. It exists for the
// fault tests only (faults/, `make faults`): they move a running shipd
// through the webhook retry schedule (hours) in seconds, from outside the
// process. Never use it in production; serve picks it only when
// SHIPD_TEST_CLOCK_FILE is set.
//
// The file holds a Go duration ("90s", "-1h", "24h5m"); a missing or empty
// file is no offset. A file that does not parse keeps the last offset, so a
// half-written file never moves the clock backwards by accident (writers
// should still rename a complete file into place).
type File struct {
	path string

	mu     sync.Mutex
	offset time.Duration
	readAt time.Time // wall time of the last read
}

// fileRefresh is how long an offset is trusted before the file is read
// again: a change is seen within it, and a busy instance reads the file at
// most this often rather than on every Now.
const fileRefresh = 20 * time.Millisecond

// FromFile returns the clock that reads its offset from path.
func FromFile(path string) *File { return &File{path: path} }

// Now returns the wall clock moved by the file's offset, in UTC, to whole
// seconds like Real.
func (f *File) Now() time.Time {
	wall := time.Now()
	return wall.UTC().Add(f.currentOffset(wall)).Truncate(time.Second)
}

func (f *File) currentOffset(wall time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.readAt.IsZero() && wall.Sub(f.readAt) < fileRefresh {
		return f.offset
	}
	f.readAt = wall
	raw, err := os.ReadFile(f.path)
	if os.IsNotExist(err) {
		f.offset = 0
		return 0
	}
	if err != nil {
		return f.offset
	}
	text := strings.TrimSpace(string(raw))
	if text == "" {
		f.offset = 0
		return 0
	}
	if d, err := time.ParseDuration(text); err == nil {
		f.offset = d
	}
	return f.offset
}
