// Package manifest is the dispatch module's handover manifest: the
// shipments of one channel handed to the carrier's driver, with the
// document the driver signs (the carrier's, or shipd's own). Pure Go.
package manifest

import (
	"math"
	"strconv"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// MaxShipments is the most shipments one manifest hands over: shipd's
// handover document's limit (labels.MaxHandoverParcels is of parcels, and
// a shipment has one or more).
const MaxShipments = 10000

// Status is where a manifest stands: creating → created. A manifest whose
// creation failed is gone, its shipments free again.
type Status string

// The manifest statuses.
const (
	// Creating: the carrier is being asked, or shipd's document drawn; the
	// row holds its shipments, so none is put on two manifests.
	StatusCreating Status = "creating"
	StatusCreated  Status = "created"
)

// The makers of a manifest's document.
const (
	DocumentByCarrier = "carrier"
	DocumentByShipd   = "shipd"
)

// Stored is a manifest as its repository keeps it.
type Stored struct {
	ID            string
	AccountID     string
	ChannelID     string
	Provider      string
	Status        Status
	Date          string
	ShipmentIDs   []string
	ParcelCount   int
	TotalWeightKG float64
	Sender        carrier.Contact
	Origin        carrier.Address
	// Document is who made the document: DocumentByCarrier or
	// DocumentByShipd; CarrierReference the carrier's name for the
	// manifest (a protocol number, a date), "" when it has none.
	Document         string
	CarrierReference string
	Version          int
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Manifest is one handover: made by New, which enforces its rules, or read
// back by a repository (Restore); Stored hands out a copy.
type Manifest struct {
	s Stored
}

// Restore rebuilds a manifest its repository kept.
func Restore(s Stored) *Manifest { return &Manifest{s: s} }

// Stored is a copy of the manifest's state.
func (m *Manifest) Stored() Stored {
	s := m.s
	s.ShipmentIDs = append([]string(nil), m.s.ShipmentIDs...)
	return s
}

// ID is the manifest's id.
func (m *Manifest) ID() string { return m.s.ID }

// BelongsTo reports whether the manifest is accountID's.
func (m *Manifest) BelongsTo(accountID string) bool { return m.s.AccountID == accountID }

// Request is a client's manifest: a channel and the shipments to hand over;
// ShipmentIDs nil: every shipment of the channel a carrier holds and no
// manifest lists.
type Request struct {
	ChannelID   string
	ShipmentIDs []string
}

// Check is the request's own problems, before any channel or shipment is
// looked at.
func (r Request) Check() error {
	errs := fault.FieldErrors{}
	r.check(errs)
	return errs.Err()
}

func (r Request) check(errs fault.FieldErrors) {
	if r.ChannelID == "" {
		errs.Add("shipping_channel_id", "is required")
	}
	if r.ShipmentIDs != nil && len(r.ShipmentIDs) == 0 {
		errs.Add("shipment_ids", "must have at least 1 item, or be left out for every created shipment of the channel not yet on a manifest")
	}
	if len(r.ShipmentIDs) > MaxShipments {
		errs.Add("shipment_ids", "must have at most "+strconv.Itoa(MaxShipments)+" items")
	}
	seen := map[string]int{}
	for i, id := range r.ShipmentIDs {
		path := "shipment_ids." + strconv.Itoa(i)
		if j, dup := seen[id]; dup {
			errs.Add(path, "repeats shipment_ids."+strconv.Itoa(j))
		} else if !domain.IsShipmentID(id) {
			errs.Add(path, "must be a shipment id (sh_...)")
		}
		seen[id] = i
	}
}

// Context is what New is told besides the request: who makes it, the
// provider's dispatch, and the shipments as the module knows them, in the
// order to list them.
type Context struct {
	ID        string
	AccountID string
	Provider  string
	Dispatch  carrier.DispatchInfo
	Shipments []domain.Shipment
	// Named is whether the request named the shipments (false: the
	// channel's undispatched ones were taken).
	Named bool
	// Unknown are the requested ids the module does not know.
	Unknown map[string]bool
	Now     time.Time
}

// New is a manifest being created (StatusCreating), dated today (UTC): it
// refuses what Check refuses, shipments it cannot hand over (unknown, of
// another account or channel, not created at the carrier, cancelled), and
// an empty handover. Its sender and origin are its first shipment's.
func New(r Request, c Context) (*Manifest, error) {
	errs := fault.FieldErrors{}
	r.check(errs)
	byID := map[string]domain.Shipment{}
	for _, sh := range c.Shipments {
		byID[sh.ID] = sh
	}
	for i, id := range r.ShipmentIDs {
		path := "shipment_ids." + strconv.Itoa(i)
		if sh, ok := byID[id]; ok {
			if p := sh.DispatchProblem(c.AccountID, r.ChannelID); p != "" {
				errs.Add(path, p)
			}
		} else if c.Unknown[id] {
			errs.Add(path, "does not name a shipment this module knows (a shipment created at its carrier moments ago may not be known yet: try again)")
		}
	}
	if r.ShipmentIDs == nil && len(c.Shipments) == 0 && len(errs) == 0 {
		errs.Add("shipment_ids", "the channel has no created shipment that is not on a manifest")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	s := Stored{ID: c.ID, AccountID: c.AccountID, ChannelID: r.ChannelID, Provider: c.Provider, Status: StatusCreating,
		Date: c.Now.UTC().Format(domain.DateLayout), Version: 1, CreatedAt: c.Now, UpdatedAt: c.Now,
		Sender: c.Shipments[0].Sender, Origin: c.Shipments[0].Origin}
	var weight float64
	for _, sh := range c.Shipments {
		s.ShipmentIDs = append(s.ShipmentIDs, sh.ID)
		s.ParcelCount += len(sh.Parcels)
		weight += sh.WeightKG()
	}
	s.TotalWeightKG = math.Round(weight*1000) / 1000
	s.Document = DocumentByShipd
	if c.Dispatch.Manifest == carrier.ManifestByCarrier {
		s.Document = DocumentByCarrier
	}
	return &Manifest{s: s}, nil
}

// AsksCarrier reports whether the carrier is asked for its document.
func (m *Manifest) AsksCarrier() bool { return m.s.Document == DocumentByCarrier }

// Handover is the manifest as its carrier is asked for it.
func (m *Manifest) Handover(shipments []carrier.DispatchShipment) carrier.ManifestRequest {
	return carrier.ManifestRequest{Key: m.s.ID, Date: m.s.Date, Sender: m.s.Sender, Origin: m.s.Origin, Shipments: shipments}
}

// Created records what the carrier answered (its reference; whether its
// document came, else shipd draws its own): the manifest is created.
func (m *Manifest) Created(reference string, carrierDocument bool, now time.Time) error {
	if m.s.Status != StatusCreating {
		return fault.Conflict("manifest_created", "The manifest is created already.")
	}
	m.s.Status = StatusCreated
	m.s.CarrierReference = reference
	if !carrierDocument {
		m.s.Document = DocumentByShipd
	}
	m.s.Version++
	m.s.UpdatedAt = now
	return nil
}
