// Package memory is the dispatch module's driven side in memory: the
// repositories of pickups and manifests, the module's copy of shipments and
// the list read models, for tests of the app layer that need no database
// (the channels facade is channelstest's). Each keeps the contract its
// PostgreSQL counterpart keeps, and repositorytest holds both to it: a
// missing pickup or manifest is fault.NotFound, a shipment is held by one
// active pickup and one manifest at most, a channel has one active pickup a
// date, a change is saved with its events or not at all, Forget removes
// only what is being ordered or created, and the lists show what the
// events said. What only SQL does (row locks, the outbox's delivery, the
// version guard of the projections) is not modelled.
package memory

import (
	"slices"
	"time"
)

// stamp is t as a timestamptz column gives it back: in UTC, to the
// microsecond, without Go's monotonic reading.
func stamp(t time.Time) time.Time { return t.UTC().Round(time.Microsecond) }

func stampPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

// ids is a text[] column read back: an empty array is nil.
func ids(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}
