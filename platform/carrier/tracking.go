package carrier

import (
	"context"
	"time"
)

// Tracker is the part of the port that follows parcels. Every provider whose
// parcels can be tracked implements it.
type Tracker interface {
	// Track asks the carrier what happened to one parcel. A number the
	// carrier does not know is an answer (Recognized false), not an error;
	// a carrier that cannot be reached returns an error wrapping
	// ErrUnavailable.
	Track(ctx context.Context, settings Settings, req TrackingRequest) (Tracking, error)
}

// TrackingRequest names the parcel to track.
type TrackingRequest struct {
	TrackingNumber string
	// Since is when shipd started tracking the parcel. Real carriers ignore
	// it; the sandbox carrier's journeys start there.
	Since time.Time
}

// Tracking is a carrier's answer about one parcel.
type Tracking struct {
	// Recognized is false when the carrier does not know the number.
	Recognized bool
	// Events are the carrier's scans and notices, in any order.
	Events []TrackingEvent
}

// TrackingEvent is one scan or notice as the carrier reported it, with the
// standard status its code maps to.
type TrackingEvent struct {
	// Code is the carrier's own code for the event, kept as it came.
	Code string
	// Status is what the adapter's table maps Code to; empty when the table
	// has no entry, so that nothing is guessed.
	Status      TrackingStatus
	Description string
	Location    string
	At          time.Time
	// CODCollected marks the carrier saying it collected the cash on delivery.
	CODCollected bool
}

// TimeScaled is implemented by a carrier whose clock runs faster than real
// time (the sandbox): checks of its parcels are spaced by the delay divided
// by TimeScale, so its journeys and their checks keep their proportions.
type TimeScaled interface {
	TimeScale() float64
}

// TrackingStatus is one of the standard statuses every carrier's codes map to.
type TrackingStatus string

// The standard tracking statuses.
const (
	StatusCreated                TrackingStatus = "created"
	StatusNotRecognized          TrackingStatus = "not_recognized"
	StatusWaitingForShipment     TrackingStatus = "waiting_for_shipment"
	StatusInTransit              TrackingStatus = "in_transit"
	StatusOutForDelivery         TrackingStatus = "out_for_delivery"
	StatusReadyForPickup         TrackingStatus = "ready_for_pickup"
	StatusDelivered              TrackingStatus = "delivered"
	StatusDeliveredWithException TrackingStatus = "delivered_with_exception"
	StatusDeliveryFailed         TrackingStatus = "delivery_failed"
	StatusOnHold                 TrackingStatus = "on_hold"
	StatusReturned               TrackingStatus = "returned"
	StatusCancelled              TrackingStatus = "cancelled"
	StatusError                  TrackingStatus = "error"
)

// TrackingStatuses lists every standard status, in journey order.
var TrackingStatuses = []TrackingStatus{
	StatusCreated, StatusNotRecognized, StatusWaitingForShipment, StatusInTransit, StatusOutForDelivery,
	StatusReadyForPickup, StatusDelivered, StatusDeliveredWithException, StatusDeliveryFailed, StatusOnHold,
	StatusReturned, StatusCancelled, StatusError,
}

// Valid reports whether s is a standard status.
func (s TrackingStatus) Valid() bool {
	for _, v := range TrackingStatuses {
		if v == s {
			return true
		}
	}
	return false
}

// Terminal reports whether a parcel in s has finished its journey.
func (s TrackingStatus) Terminal() bool {
	switch s {
	case StatusDelivered, StatusDeliveredWithException, StatusReturned, StatusCancelled:
		return true
	}
	return false
}

// Moving reports whether a parcel in s is in the carrier's hands (or past
// them): the first such status is when its shipment has shipped.
func (s TrackingStatus) Moving() bool {
	switch s {
	case StatusInTransit, StatusOutForDelivery, StatusReadyForPickup, StatusDelivered,
		StatusDeliveredWithException, StatusDeliveryFailed, StatusOnHold, StatusReturned:
		return true
	}
	return false
}

// Delivered reports whether s is a delivery (with or without exception).
func (s TrackingStatus) Delivered() bool {
	return s == StatusDelivered || s == StatusDeliveredWithException
}

// StatusTable is a carrier's explicit map from its event codes to standard
// statuses. A code it lacks maps to nothing.
type StatusTable map[string]TrackingStatus

// Status returns the standard status of code, or "" when the table has none.
func (t StatusTable) Status(code string) TrackingStatus { return t[code] }
