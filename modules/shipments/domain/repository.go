package domain

import (
	"context"
	"slices"
)

// Event is something that happened to a shipment, published with the change.
type Event interface {
	EventType() string
	EventStream() string
}

// Repository keeps shipments. Each method is one short transaction that
// also publishes the given events (transactional outbox), or joins the
// transaction its caller's context holds (a consumer group's batch).
type Repository interface {
	Add(ctx context.Context, sh *Shipment, events ...Event) error
	Get(ctx context.Context, id string) (*Shipment, error)
	// Update loads the shipment locked, lets fn change it and name the
	// events, and saves it (with a label Booked recorded, and the tracking
	// request RequestTracking kept sent with it) when fn named events or
	// changed what is stored; when fn fails nothing is saved. fn does no
	// I/O.
	Update(ctx context.Context, id string, fn func(sh *Shipment) ([]Event, error)) (*Shipment, error)
	// UpdateAll applies changes, in their order, as Update would apply
	// them one after another, in one transaction: each shipment is locked
	// and loaded once, its changes applied to it in turn, and it is saved
	// once when one of them named events or changed what is stored; the
	// events go out in the order the changes named them. Changes of a
	// shipment not found (deleted meanwhile) are skipped. A change may
	// touch the shipment's record only: a label, label parts or a tracking
	// request are Update's, and UpdateAll refuses them, saving nothing.
	UpdateAll(ctx context.Context, changes []Change) error
	// Delete loads the shipment locked, lets fn veto, and deletes it.
	Delete(ctx context.Context, id string, fn func(sh *Shipment) ([]Event, error)) error
	// Label returns the stored merged label; nil when there is none.
	Label(ctx context.Context, id string) (*Label, error)
	// LabelParts returns the labels of the carrier's answer kept with the
	// acceptance (KeepLabelParts); none once the label is stored, or
	// dropped. Update saves a change of them (TakeLabelPartsChange).
	LabelParts(ctx context.Context, id string) (LabelParts, error)
}

// Change is one change of a shipment in Repository.UpdateAll: Apply
// changes it and names the events to publish (none when nothing happened).
// It does no I/O and cannot fail.
type Change struct {
	ID    string
	Apply func(sh *Shipment) []Event
}

// ChangedIDs are the shipments changes are about, each once, in the one
// order every repository locks them in.
func ChangedIDs(changes []Change) []string {
	ids := make([]string, len(changes))
	for i, c := range changes {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// ApplyInTurn applies changes in their order to the shipments found, by
// id, passing over changes of shipments not found; it returns the events
// the changes named, in that order, and the shipments some change named
// events of.
func ApplyInTurn(changes []Change, found map[string]*Shipment) (events []Event, named map[string]bool) {
	named = map[string]bool{}
	for _, c := range changes {
		sh, ok := found[c.ID]
		if !ok {
			continue
		}
		e := c.Apply(sh)
		if len(e) > 0 {
			named[c.ID] = true
		}
		events = append(events, e...)
	}
	return events, named
}
