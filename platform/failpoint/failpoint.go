// Package failpoint lets the fault suite kill shipd at an exact instant that
// a signal from outside could only hit by luck: SHIPD_TEST_FAILPOINT names
// the point and the share of passes that die there ("name=0.25"). Nothing is
// armed unless that variable is set; production never sets it.
package failpoint

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// The points shipd offers.
const (
	// AfterIdempotentCommit is after a keyed POST's writes and stored answer
	// committed, before the client hears the answer.
	AfterIdempotentCommit = "idempotency-after-commit"
	// AfterCarrierAnswer is after a carrier accepted a booking and
	// answered, before shipd records the answer (ADR 0041).
	AfterCarrierAnswer = "booking-after-carrier-answer"
	// AfterCarrierAccepted is after the carrier's acceptance was recorded,
	// before the label is fetched and merged.
	AfterCarrierAccepted = "booking-after-carrier-accepted"
	// GroupBatchWritten is after a consumer group that changes aggregates
	// or makes webhook deliveries wrote its batch in its transaction,
	// before that transaction, with the acknowledgement, commits (ADR
	// 0048): a kill there must take the batch with the acknowledgement.
	GroupBatchWritten = "group-batch-written"
	// PickupOrderingStored is after a courier pickup was stored as being
	// ordered (the recovery point of ADR 0041), before its carrier is
	// asked.
	PickupOrderingStored = "pickup-ordering-stored"
	// PickupAfterCarrierAnswer is after a carrier confirmed a pickup
	// order, before shipd records the pickup as scheduled.
	PickupAfterCarrierAnswer = "pickup-after-carrier-answer"
	// ManifestCreatingStored is after a manifest was stored as being
	// created, its shipments held, before its document is made.
	ManifestCreatingStored = "manifest-creating-stored"
)

var known = []string{AfterIdempotentCommit, AfterCarrierAnswer, AfterCarrierAccepted, GroupBatchWritten,
	PickupOrderingStored, PickupAfterCarrierAnswer, ManifestCreatingStored}

type armed struct {
	name  string
	share float64
	stop  bool // Stop: return ErrStopped instead of dying
	hits  atomic.Int64
}

// ErrStopped is what Hit returns at a point armed by Stop.
var ErrStopped = errors.New("failpoint: stopped here, as a killed process would")

// Stop arms name for an in-process test: its next times passes each return
// ErrStopped, the work ending there as if the process had died, and the
// test goes on. The returned func disarms it and says how often it hit.
// Tests that use it must not run in parallel with others of their package.
func Stop(name string, times int) (disarm func() int) {
	a := &armed{name: name, share: 1, stop: true}
	current.Store(a)
	var once sync.Once
	check := func() {
		if int(a.hits.Load()) >= times {
			once.Do(func() { current.CompareAndSwap(a, nil) })
		}
	}
	stopChecks.Store(&check)
	return func() int {
		current.CompareAndSwap(a, nil)
		stopChecks.Store(nil)
		return int(a.hits.Load())
	}
}

var stopChecks atomic.Pointer[func()]

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
	if !slices.Contains(known, name) {
		return fmt.Errorf("failpoint %q: unknown point (known: %s)", spec, strings.Join(known, ", "))
	}
	current.Store(&armed{name: name, share: share})
	return nil
}

// Hit kills the process with SIGKILL, as kill -9 would, when name is armed
// and the draw falls in its share; under an in-process test's Stop it
// returns ErrStopped instead, and the caller gives up right there as a
// killed process would.
func Hit(name string) error {
	a := current.Load()
	if a == nil || a.name != name || rand.Float64() >= a.share {
		return nil
	}
	if a.stop {
		a.hits.Add(1)
		if check := stopChecks.Load(); check != nil {
			(*check)()
		}
		return ErrStopped
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way; nothing more may happen here
}
