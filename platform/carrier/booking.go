package carrier

import "context"

// Booking is what lets a retried booking of one shipment resume the
// carrier's booking instead of making a second one (ADR 0038). Carriers
// that book asynchronously (PPL's batch, InPost's confirmation, Allegro's
// create command) accept a booking first and finish it later; an attempt
// that ends in between has booked the shipment at the carrier already.
type Booking struct {
	// Key is the same for every attempt to book one shipment (its shipd
	// id). A carrier that takes a client-chosen id for the booking
	// (Allegro's commandId) derives it from Key, so every attempt sends the
	// same one.
	Key string
	// Handle is what an earlier attempt recorded through Accepted: the
	// carrier's id of a booking it had accepted (a PPL batch id, an InPost
	// shipment id, an Allegro command id). Empty on a first attempt. An
	// adapter given one continues from it, polling and reading the outcome,
	// and never books again.
	Handle string
	// Accepted records handle once the carrier has accepted the booking
	// and before the adapter waits for its outcome. nil records nothing.
	// When it fails the adapter returns its error (wrapping ErrUnavailable
	// unless it already is a Rejection): the attempt ends, and the next one
	// may book again, the one window left (a crash between the carrier's
	// acceptance and this record).
	Accepted func(ctx context.Context, handle string) error
}

// Accept records handle through b.Accepted, when there is one.
func (b Booking) Accept(ctx context.Context, handle string) error {
	if b.Accepted == nil {
		return nil
	}
	return b.Accepted(ctx, handle)
}

// BookingFinder is a carrier that can say whether it holds a booking made
// under a booking key (a reference it keeps with the shipment), so that an
// attempt following one that ended unseen (a crash between the carrier's
// answer and the handle's record) asks before it books, and resumes what
// the carrier already made (ADR 0041). A carrier without one books again in
// that window.
type BookingFinder interface {
	// FindBooking answers the handle of the carrier's booking made under
	// req.Booking.Key, as Booking.Accept would have recorded it, and
	// whether there is one; a carrier that cannot be asked returns an error
	// wrapping ErrUnavailable.
	FindBooking(ctx context.Context, settings Settings, req ShipmentRequest) (handle string, found bool, err error)
}
