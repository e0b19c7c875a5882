package domain

import "context"

// Event is something that happened to a shipment, published with the change.
type Event interface {
	EventType() string
	EventStream() string
}

// Repository keeps shipments. Each method is one short transaction that
// also publishes the given events (transactional outbox).
type Repository interface {
	Add(ctx context.Context, sh *Shipment, events ...Event) error
	Get(ctx context.Context, id string) (*Shipment, error)
	// Update loads the shipment locked, lets fn change it and name the
	// events, and saves it (with a label Booked recorded, and the tracking
	// request RequestTracking kept sent with it) when fn named events or
	// changed what is stored; when fn fails nothing is saved. fn does no
	// I/O.
	Update(ctx context.Context, id string, fn func(sh *Shipment) ([]Event, error)) (*Shipment, error)
	// Delete loads the shipment locked, lets fn veto, and deletes it.
	Delete(ctx context.Context, id string, fn func(sh *Shipment) ([]Event, error)) error
	// Label returns the stored merged label; nil when there is none.
	Label(ctx context.Context, id string) (*Label, error)
	// LabelParts returns the labels of the carrier's answer kept with the
	// acceptance (KeepLabelParts); none once the label is stored, or
	// dropped. Update saves a change of them (TakeLabelPartsChange).
	LabelParts(ctx context.Context, id string) (LabelParts, error)
}
