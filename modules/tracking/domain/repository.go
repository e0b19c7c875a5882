package domain

import "context"

// Event is something that happened to a tracking parcel, published with the change.
type Event interface {
	EventType() string
	EventStream() string
}

// Repository keeps tracking parcels. Each method is one short transaction
// (or part of the one its context holds: a request's, or a consumer
// group's whose run of messages it writes) that also publishes the given
// events (transactional outbox).
type Repository interface {
	// Add inserts the parcel; a number the account already tracks through
	// the channel is a validation fault on tracking_number.
	Add(ctx context.Context, p *Parcel, events ...Event) error
	// AddAll inserts a run of parcels in one transaction, each with the
	// events of its making, published in the order given. A parcel whose
	// number the account already tracks through the channel, or an earlier
	// parcel of the run names, is not inserted and its events are not
	// published: AddAll returns those, in order. A run that cannot be
	// inserted whole is not inserted at all.
	AddAll(ctx context.Context, additions []Addition) ([]*Parcel, error)
	// Get loads one parcel with its status updates.
	Get(ctx context.Context, id string) (*Parcel, error)
	// GetStored loads one parcel's state without its status updates (what a
	// check needs before it calls the carrier).
	GetStored(ctx context.Context, id string) (Stored, error)
	// TrackedThrough lists the parcels of a channel whose checks go on.
	TrackedThrough(ctx context.Context, accountID, channelID string) ([]string, error)
	// Update loads the parcel locked, lets fn change it and name the events,
	// and saves it with its new status updates (each carrier event once),
	// whether or not fn named events, and ends its check's lease (the check
	// is recorded). When fn fails nothing is saved. fn does no I/O.
	Update(ctx context.Context, id string, fn func(p *Parcel) ([]Event, error)) (*Parcel, error)
	// UpdateAll applies many changes in one transaction: each parcel is
	// loaded locked, changed by its Apply (in the order given), and saved
	// with its new status updates and the events Apply named, its lease
	// ended. A parcel that no longer exists is skipped; a batch that cannot
	// be saved whole is not saved at all.
	UpdateAll(ctx context.Context, changes []Change) error
	// Delete loads the parcel locked, lets fn veto, and deletes it.
	Delete(ctx context.Context, id string, fn func(p *Parcel) ([]Event, error)) error
}

// Addition is one new parcel of Repository.AddAll and the events of its
// making.
type Addition struct {
	Parcel *Parcel
	Events []Event
}

// Change is one parcel's change in Repository.UpdateAll. Apply does no I/O
// and returns the events of what it changed.
type Change struct {
	ID    string
	Apply func(p *Parcel) []Event
}
