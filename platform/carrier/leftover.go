package carrier

import (
	"errors"
	"strings"
)

// LeftAtCarrier is a failed booking that left shipments at the carrier:
// the adapter booked part of the request (a DHL shipment, Packeta's first
// packets), then something failed and its best-effort cancel of what it had
// made failed too. The carrier still holds them, and may charge for them,
// so the caller records them on the shipment and the operator's log says
// which; they are never dropped silently.
type LeftAtCarrier struct {
	// ProviderIDs are the carrier's ids of what it still holds (shipment
	// numbers, packet ids, waybills).
	ProviderIDs []string
	// CancelErr is why the cancel failed. It is not unwrapped: a carrier
	// refusing the cancel must not read as a refusal of the booking.
	CancelErr error
}

func (l *LeftAtCarrier) Error() string {
	return "left at the carrier, not cancelled: " + strings.Join(l.ProviderIDs, ", ") + " (" + l.CancelErr.Error() + ")"
}

// WithLeftover joins the booking's failure err with what a failed cancel
// left at the carrier, keeping err's kind (a Rejection or ErrUnavailable)
// for errors.Is and RefusalsOf.
func WithLeftover(err error, ids []string, cancelErr error) error {
	if cancelErr == nil || len(ids) == 0 {
		return err
	}
	return errors.Join(err, &LeftAtCarrier{ProviderIDs: ids, CancelErr: cancelErr})
}

// LeftoverOf is what err says the carrier still holds, or nil.
func LeftoverOf(err error) *LeftAtCarrier {
	var l *LeftAtCarrier
	if errors.As(err, &l) {
		return l
	}
	return nil
}
