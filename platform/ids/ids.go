// Package ids makes the public identifiers of the service: a type prefix and a
// 26-character ULID, so ids sort by creation time and say what they name.
package ids

import (
	"crypto/rand"
	"slices"
	"strings"
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
	Pickup          = "pck"
	Manifest        = "mnf"
)

// New returns prefix_ULID with the current time.
func New(prefix string) string {
	return NewAt(prefix, time.Now())
}

// NewAt returns an id whose time part is t (used with an injected clock) and
// whose other 80 bits are fresh from crypto/rand: ids made in the same
// instant, by any account, are unrelated, so no id tells how many others
// were made beside it (ADR 0011). Their order within that instant is
// arbitrary.
func NewAt(prefix string, t time.Time) string {
	return prefix + "_" + ulid.MustNew(ulid.Timestamp(t), rand.Reader).String()
}

// NewSortedAt returns n ids made at t, each random like NewAt's, in ascending
// order: for records made together whose order must survive a reload that
// sorts by id, such as one check's status updates in the carrier's order.
func NewSortedAt(prefix string, t time.Time, n int) []string {
	made := make([]string, n)
	for i := range made {
		made[i] = NewAt(prefix, t)
	}
	slices.Sort(made)
	return made
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
