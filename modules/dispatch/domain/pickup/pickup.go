// Package pickup is the dispatch module's courier pickup: a carrier's
// courier ordered to collect parcels at an address on a date, within a
// window. Pure Go.
package pickup

import (
	"time"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Status is where a pickup stands:
// ordering → scheduled → cancelled; ordering → unconfirmed → cancelled.
type Status string

// The pickup statuses.
const (
	// Ordering: shipd is asking the carrier now. The row is the recovery
	// point of ADR 0041: it exists before the carrier is called, so an
	// order whose answer was lost is found, never made again.
	StatusOrdering Status = "ordering"
	// Scheduled: the carrier confirmed the order.
	StatusScheduled Status = "scheduled"
	// Unconfirmed: shipd asked and lost the answer (a crash, a timeout):
	// the carrier may hold the order. shipd never orders it again by
	// itself; the merchant checks with the carrier and cancels it here.
	StatusUnconfirmed Status = "unconfirmed"
	// Cancelled: cancelled at the carrier, or, when unconfirmed, here.
	StatusCancelled Status = "cancelled"
)

// ValidStatus reports whether s names a status (a list filter).
func ValidStatus(s string) bool {
	switch Status(s) {
	case StatusOrdering, StatusScheduled, StatusUnconfirmed, StatusCancelled:
		return true
	}
	return false
}

// Active reports whether the pickup holds its channel's date and its
// shipments: anything but cancelled.
func (s Status) Active() bool { return s != StatusCancelled }

// Stored is a pickup as its repository keeps it.
type Stored struct {
	ID        string
	AccountID string
	ChannelID string
	Provider  string
	Status    Status
	// Date, ReadyFrom and ReadyUntil are the window asked for.
	Date       string
	ReadyFrom  string
	ReadyUntil string
	Address    carrier.Address
	Contact    carrier.Contact
	// ShipmentIDs are the shipments to collect (none: a count and weight).
	ShipmentIDs   []string
	ParcelCount   int
	TotalWeightKG float64
	Note          string
	// What the carrier confirmed: its number, the window (empty: the one
	// asked for stands), and what it needs to cancel (never shown).
	ConfirmationNumber string
	ConfirmedDate      string
	ConfirmedFrom      string
	ConfirmedUntil     string
	CarrierHandle      string
	// OrderHandle is what a carrier that confirms later accepted the order
	// under (carrier.Booking.Handle): an order resumes from it.
	OrderHandle string
	Version     int
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CancelledAt *time.Time
}

// Pickup is one courier pickup: made by New, which enforces its rules, or
// read back by a repository (Restore); Stored hands out a copy.
type Pickup struct {
	s Stored
}

// Restore rebuilds a pickup its repository kept.
func Restore(s Stored) *Pickup { return &Pickup{s: s} }

// Stored is a copy of the pickup's state.
func (p *Pickup) Stored() Stored {
	s := p.s
	s.ShipmentIDs = append([]string(nil), p.s.ShipmentIDs...)
	return s
}

// ID is the pickup's id.
func (p *Pickup) ID() string { return p.s.ID }

// BelongsTo reports whether the pickup is accountID's.
func (p *Pickup) BelongsTo(accountID string) bool { return p.s.AccountID == accountID }

// Status is where the pickup stands.
func (p *Pickup) Status() Status { return p.s.Status }

// OrderHandle is what an order that confirms later was accepted under.
func (p *Pickup) OrderHandle() string { return p.s.OrderHandle }

// Order is the pickup as its carrier is asked for it.
func (p *Pickup) Order(shipments []carrier.DispatchShipment) carrier.CourierPickupRequest {
	return carrier.CourierPickupRequest{Date: p.s.Date, ReadyFrom: p.s.ReadyFrom, ReadyUntil: p.s.ReadyUntil,
		Address: p.s.Address, Contact: p.s.Contact, Shipments: shipments, ParcelCount: p.s.ParcelCount,
		TotalWeightKG: p.s.TotalWeightKG, Note: p.s.Note,
		Booking: carrier.Booking{Key: p.s.ID, Handle: p.s.OrderHandle}}
}

// Ordered is the pickup as its carrier confirmed it, for a cancel.
func (p *Pickup) Ordered() carrier.CourierPickup {
	return carrier.CourierPickup{ConfirmationNumber: p.s.ConfirmationNumber, Date: p.s.ConfirmedDate,
		ReadyFrom: p.s.ConfirmedFrom, ReadyUntil: p.s.ConfirmedUntil, Handle: p.s.CarrierHandle}
}

// Accepted records the handle a carrier that confirms later accepted the
// order under.
func (p *Pickup) Accepted(handle string, now time.Time) error {
	if p.s.Status != StatusOrdering {
		return fault.Conflict("pickup_not_ordering", "The pickup is "+string(p.s.Status)+"; it is not being ordered.")
	}
	p.s.OrderHandle = handle
	p.s.UpdatedAt = now
	return nil
}

// Confirmed records the carrier's confirmation: the pickup is scheduled.
func (p *Pickup) Confirmed(c carrier.CourierPickup, now time.Time) error {
	if p.s.Status != StatusOrdering && p.s.Status != StatusUnconfirmed {
		return fault.Conflict("pickup_not_ordering", "The pickup is "+string(p.s.Status)+"; it is not being ordered.")
	}
	p.s.Status = StatusScheduled
	p.s.ConfirmationNumber = c.ConfirmationNumber
	p.s.ConfirmedDate, p.s.ConfirmedFrom, p.s.ConfirmedUntil = c.Date, c.ReadyFrom, c.ReadyUntil
	p.s.CarrierHandle = c.Handle
	p.touch(now)
	return nil
}

// Unconfirmed records that the carrier's answer was lost: the carrier may
// hold the order.
func (p *Pickup) Unconfirmed(now time.Time) error {
	if p.s.Status != StatusOrdering {
		return fault.Conflict("pickup_not_ordering", "The pickup is "+string(p.s.Status)+"; it is not being ordered.")
	}
	p.s.Status = StatusUnconfirmed
	p.touch(now)
	return nil
}

// CancelProblem refuses a cancel of this pickup with the reason, or nil:
// one cancelled already, one being ordered, or a scheduled one whose
// carrier takes no cancel through its API (dispatch says).
func (p *Pickup) CancelProblem(dispatch carrier.DispatchInfo) error {
	switch {
	case p.s.Status == StatusCancelled:
		return fault.Conflict("pickup_cancelled", "The pickup is cancelled already.")
	case p.s.Status == StatusOrdering:
		return fault.Conflict("pickup_being_ordered", "The pickup is being ordered at the carrier now; cancel it once it is scheduled.")
	case p.s.Status == StatusScheduled && !dispatch.PickupCancel:
		return fault.Conflict("pickup_not_cancellable", "The carrier "+p.s.Provider+
			" takes no pickup cancellation through its API; cancel it with the carrier (confirmation number "+p.s.ConfirmationNumber+").")
	}
	return nil
}

// AsksCarrierToCancel reports whether a cancel goes to the carrier: a
// scheduled pickup's does; an unconfirmed one has no number to cancel by.
func (p *Pickup) AsksCarrierToCancel() bool { return p.s.Status == StatusScheduled }

// Cancel cancels the pickup, which CancelProblem allowed.
func (p *Pickup) Cancel(dispatch carrier.DispatchInfo, now time.Time) error {
	if err := p.CancelProblem(dispatch); err != nil {
		return err
	}
	p.s.Status = StatusCancelled
	p.s.CancelledAt = &now
	p.touch(now)
	return nil
}

func (p *Pickup) touch(now time.Time) {
	p.s.Version++
	p.s.UpdatedAt = now
}
