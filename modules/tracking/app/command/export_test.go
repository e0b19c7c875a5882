package command

import (
	"context"

	"shipd/modules/tracking/domain"
)

// NewCheckDueParcels is the undecorated handler, whose group commits these
// tests drive by hand.
var NewCheckDueParcels = newCheckDueParcels

// CheckTogether checks each claimed parcel and records every outcome in one
// group commit, as when the worker's checks finish while a commit is under
// way; it returns the first error of a check that records nothing.
func (h CheckDueParcelsHandler) CheckTogether(ctx context.Context, due []DueCheck) error {
	changes := make([]domain.Change, 0, len(due))
	for _, d := range due {
		found, err := h.checker.check(ctx, d.Parcel, d.Channel, d.ChannelErr)
		if err != nil {
			return err
		}
		changes = append(changes, found.change(d.Parcel.ID, h.checker.clock.Now()))
	}
	h.WriteTogether(ctx, changes)
	return nil
}

// WriteTogether records changes as one group commit.
func (h CheckDueParcelsHandler) WriteTogether(ctx context.Context, changes []domain.Change) {
	batch := make([]*queuedOutcome, len(changes))
	for i, c := range changes {
		batch[i] = &queuedOutcome{change: c, done: make(chan struct{})}
	}
	h.outcomes.write(ctx, batch)
}
