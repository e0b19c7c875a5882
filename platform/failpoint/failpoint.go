// Package failpoint lets the fault suite kill shipd at an exact instant that
// a signal from outside could only hit by luck: SHIPD_TEST_FAILPOINT names
// the point and the share of passes that die there ("name=0.25"). Nothing is
// armed unless that variable is set; production never sets it.
package failpoint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// The points shipd offers.
const (
	// AfterIdempotentCommit is after a keyed POST's writes and stored answer
	// committed, before the client hears the answer.
	AfterIdempotentCommit = "idempotency-after-commit"
)

type armed struct {
	name  string
	share float64
}

var current atomic.Pointer[armed]

// Arm reads a spec "name=share" (share in (0, 1], default 1). An empty spec
// disarms.
func Arm(spec string) error {
	if spec == "" {
		current.Store(nil)
		return nil
	}
	name, shareText, hasShare := strings.Cut(spec, "=")
	share := 1.0
	if hasShare {
		var err error
		if share, err = strconv.ParseFloat(shareText, 64); err != nil || share <= 0 || share > 1 {
			return fmt.Errorf("failpoint %q: the share must be a number in (0, 1]", spec)
		}
	}
	if name != AfterIdempotentCommit {
		return fmt.Errorf("failpoint %q: unknown point (known: %s)", spec, AfterIdempotentCommit)
	}
	current.Store(&armed{name: name, share: share})
	return nil
}

// Hit kills the process with SIGKILL, as kill -9 would, when name is armed
// and the draw falls in its share.
func Hit(name string) {
	a := current.Load()
	if a == nil || a.name != name || rand.Float64() >= a.share {
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way; nothing more may happen here
}
