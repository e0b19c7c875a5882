package sandbox

import (
	"strings"
	"time"

	"shipd/platform/carrier"
)

// journey is the story a parcel's scans tell, picked by the first digit of
// its tracking number's serial.
type journey int

// The journeys. Digits 8 and 9 tell the normal story too.
const (
	journeyNormal        journey = 0 // picked up, sorted, delivered after 26 h
	journeyFailed        journey = 1 // a failed attempt at 24 h, delivered at 48 h
	journeyReturned      journey = 2 // a failed attempt, a pickup point, back to the sender at 96 h
	journeyOnHold        journey = 3 // held at customs from 10 h to 34 h, delivered at 50 h
	journeyNotRecognized journey = 4 // the carrier never knows the number
	journeyUnmapped      journey = 5 // only codes the status table lacks
	journeyUnavailable   journey = 6 // the tracking service answers 503 for this number
	journeyHang          journey = 7 // the tracking service never answers for this number
)

// Shipment reference prefixes that pick the journey of every parcel booked.
const (
	RefTrackFailed      = "TRACK-FAILED"
	RefTrackReturned    = "TRACK-RETURNED"
	RefTrackOnHold      = "TRACK-HOLD"
	RefTrackUnknown     = "TRACK-UNKNOWN"
	RefTrackUnmapped    = "TRACK-UNMAPPED"
	RefTrackUnavailable = "TRACK-DOWN"
	RefTrackHang        = "TRACK-HANG"
)

var journeyRefs = []struct {
	prefix string
	j      journey
}{
	{RefTrackFailed, journeyFailed}, {RefTrackReturned, journeyReturned}, {RefTrackOnHold, journeyOnHold},
	{RefTrackUnknown, journeyNotRecognized}, {RefTrackUnmapped, journeyUnmapped},
	{RefTrackUnavailable, journeyUnavailable}, {RefTrackHang, journeyHang},
}

// journeyOfReference is the journey a shipment reference asks for.
func journeyOfReference(ref string) journey {
	for _, r := range journeyRefs {
		if strings.HasPrefix(ref, r.prefix) {
			return r.j
		}
	}
	return journeyNormal
}

// journeyOf is the journey of a valid sandbox tracking number.
func journeyOf(trackingNumber string) journey { return journey(trackingNumber[2] - '0') }

// hasCOD reports whether the number was given to a cash-on-delivery parcel.
func hasCOD(trackingNumber string) bool { return trackingNumber[3] == '1' }

// The sandbox carrier's event codes.
const (
	codeData      = "DATA"
	codePickup    = "PICKUP"
	codeHub       = "HUB"
	codeDepart    = "DEPART"
	codeOut       = "OUTDLV"
	codeDelivered = "DLV"
	codeDamaged   = "DLVX"
	codeNotHome   = "NOTHOME"
	codePickPoint = "PICKPT"
	codeCustoms   = "CUSTOMS"
	codeReleased  = "RELEASED"
	codeReturning = "RETURNING"
	codeReturned  = "RETURN"
	codeCODPaid   = "CODPAID"
	codeCancelled = "CANCEL"
)

// statusTable is the explicit map from the sandbox carrier's codes to the
// standard statuses; the unmapped journey's X- codes are deliberately absent.
var statusTable = carrier.StatusTable{
	codeData:      carrier.StatusWaitingForShipment,
	codePickup:    carrier.StatusInTransit,
	codeHub:       carrier.StatusInTransit,
	codeDepart:    carrier.StatusInTransit,
	codeReleased:  carrier.StatusInTransit,
	codeReturning: carrier.StatusInTransit,
	codeOut:       carrier.StatusOutForDelivery,
	codePickPoint: carrier.StatusReadyForPickup,
	codeDelivered: carrier.StatusDelivered,
	codeCODPaid:   carrier.StatusDelivered,
	codeDamaged:   carrier.StatusDeliveredWithException,
	codeNotHome:   carrier.StatusDeliveryFailed,
	codeCustoms:   carrier.StatusOnHold,
	codeReturned:  carrier.StatusReturned,
	codeCancelled: carrier.StatusCancelled,
}

// scan is one step of a journey, at a sandbox-time offset from its start.
type scan struct {
	after       time.Duration
	code        string
	description string
	location    string
}

const (
	depot = "Sandbox depot Praha"
	hub   = "Sandbox hub Brno"
	city  = "Brno"
)

var (
	departure = []scan{
		{0, codeData, "Shipment data received electronically", ""},
		{2 * time.Hour, codePickup, "Picked up by the courier", depot},
		{8 * time.Hour, codeHub, "Arrived at the sorting hub", hub},
	}
	journeys = map[journey][]scan{
		journeyNormal: append(departure[:3:3],
			scan{12 * time.Hour, codeDepart, "Left the sorting hub", hub},
			scan{20 * time.Hour, codeOut, "Out for delivery", city},
			scan{26 * time.Hour, codeDelivered, "Delivered to the recipient", city}),
		journeyFailed: append(departure[:3:3],
			scan{20 * time.Hour, codeOut, "Out for delivery", city},
			scan{24 * time.Hour, codeNotHome, "Recipient not at home; delivery failed, next attempt tomorrow", city},
			scan{44 * time.Hour, codeOut, "Out for delivery (second attempt)", city},
			scan{48 * time.Hour, codeDelivered, "Delivered to the recipient", city}),
		journeyReturned: append(departure[:3:3],
			scan{20 * time.Hour, codeOut, "Out for delivery", city},
			scan{24 * time.Hour, codeNotHome, "Recipient not at home; delivery failed", city},
			scan{26 * time.Hour, codePickPoint, "Stored at a pickup point for 2 days", "Sandbox pickup point Brno"},
			scan{72 * time.Hour, codeReturning, "Not collected; on the way back to the sender", hub},
			scan{96 * time.Hour, codeReturned, "Returned to the sender", depot}),
		journeyOnHold: append(departure[:3:3],
			scan{10 * time.Hour, codeCustoms, "Held at customs: documents requested", hub},
			scan{34 * time.Hour, codeReleased, "Released by customs", hub},
			scan{44 * time.Hour, codeOut, "Out for delivery", city},
			scan{50 * time.Hour, codeDelivered, "Delivered to the recipient", city}),
		journeyUnmapped: {
			{0, "X-INFO", "Parcel information updated", ""},
			{6 * time.Hour, "X-SCAN", "Scanned at a facility", hub},
		},
	}
)

// codCollected is the scan that follows delivery of a cash-on-delivery parcel.
var codCollected = scan{time.Minute, codeCODPaid, "Cash on delivery collected and paid out to the sender", city}
