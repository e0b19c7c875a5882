// Package ids makes the public identifiers of the service: a type prefix and a
// 26-character ULID, so ids sort by creation time and say what they name.
package ids

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Prefixes of every identifier the service hands out.
const (
	Account         = "acc"
	APIKey          = "key"
	ShippingChannel = "ch"
	Shipment        = "sh"
	TrackingParcel  = "tp"
	StatusUpdate    = "tpu"
	WebhookSub      = "wh"
	WebhookLog      = "whl"
	Event           = "evt"
	User            = "usr"
)

// One monotonic entropy source per prefix: ids of one kind made at the same
// instant (the service clock counts whole seconds) still sort in creation
// order, and ids of other kinds made in between (event ids use the wall
// clock) do not reset that order.
var (
	mu      sync.Mutex
	entropy = map[string]*ulid.MonotonicEntropy{}
)

// New returns prefix_ULID with the current time. The entropy source is
// monotonic so ids made in the same millisecond still sort in creation order.
func New(prefix string) string {
	return NewAt(prefix, time.Now())
}

// NewAt returns an id whose time part is t (used with an injected clock).
func NewAt(prefix string, t time.Time) string {
	mu.Lock()
	src, ok := entropy[prefix]
	if !ok {
		src = ulid.Monotonic(rand.Reader, 0)
		entropy[prefix] = src
	}
	id := ulid.MustNew(ulid.Timestamp(t), src)
	mu.Unlock()
	return prefix + "_" + id.String()
}

// HasPrefix reports whether id is well formed and carries the given prefix.
// Handlers use it to answer 404 early for ids that cannot exist.
func HasPrefix(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"_")
	if !ok || len(rest) != ulid.EncodedSize || strings.ToUpper(rest) != rest {
		return false
	}
	_, err := ulid.ParseStrict(rest)
	return err == nil
}
