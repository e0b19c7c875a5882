package carrierhttp

import (
	"context"
	"errors"
	"fmt"

	"shipd/platform/carrier"
)

// Accept records handle, the carrier's id of a booking it has just
// accepted, through b (ADR 0041), before the adapter reads anything of the
// answer that can fail. When the record fails the attempt ends with an error
// wrapping carrier.ErrUnavailable (a refusal stays one), so the booking is
// tried again.
func Accept(ctx context.Context, b carrier.Booking, handle string) error {
	err := b.Accept(ctx, handle)
	if err == nil {
		return nil
	}
	if _, refused := carrier.RefusalsOf(err); refused || errors.Is(err, carrier.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: recording the carrier's acceptance of the booking: %w", carrier.ErrUnavailable, err)
}
