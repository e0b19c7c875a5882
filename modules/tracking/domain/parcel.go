// Package domain is the tracking parcel: a carrier's parcel followed through
// scheduled checks, its carrier events kept as status updates and read as
// one standard status. Pure Go.
package domain

import (
	"maps"
	"reflect"
	"strings"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Default and allowed check settings.
const (
	DefaultCheckDelayHours = 6
	DefaultMaxChecks       = 20
	MinCheckDelayHours     = 1
	MaxCheckDelayHours     = 168
	MinMaxChecks           = 1
	MaxMaxChecks           = 1000
)

// Stored is everything a tracking parcel is but its status updates, as a
// repository keeps it and the parcel's events show it.
type Stored struct {
	ID              string                 `json:"id"`
	AccountID       string                 `json:"account_id"`
	ChannelID       string                 `json:"shipping_channel_id"`
	Provider        string                 `json:"provider"`
	TrackingNumber  string                 `json:"tracking_number"`
	ShipmentID      string                 `json:"shipment_id"` // empty for an external parcel
	Status          carrier.TrackingStatus `json:"status"`
	Recipient       Recipient              `json:"recipient"`
	CheckDelayHours int                    `json:"check_delay_hours"`
	MaxChecks       int                    `json:"max_checks"`
	ChecksDone      int                    `json:"checks_done"`
	LastCheckedAt   *time.Time             `json:"last_checked_at"`
	NextCheckAt     *time.Time             `json:"next_check_at"` // nil once tracking stopped
	LastCheckError  string                 `json:"last_check_error"`
	CODCollectedAt  *time.Time             `json:"cod_collected_at"`
	// AwaitsCOD is set for a shipment's parcel with cash on delivery: its
	// checks go on past delivery until the carrier reports the collection.
	AwaitsCOD    bool           `json:"awaits_cod,omitempty"`
	ExternalData map[string]any `json:"external_data"`
	Version      int            `json:"version"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
}

// Recipient is who the parcel is for, as the client told us.
type Recipient struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// Parcel is the aggregate: the state and the status updates recorded so far.
type Parcel struct {
	s       Stored
	updates []StatusUpdate // oldest first
	added   []StatusUpdate // recorded since the parcel was loaded
}

// New starts tracking for the account, under id, the parcel a client asks
// for (r), whose channel is of provider: it refuses what Check refuses, and
// keeps the tracking number as carriers print it and the recipient without
// white space around. Its first check is due at once.
func New(id, accountID, provider string, r Request, now time.Time) (*Parcel, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	s := Stored{
		ID: id, AccountID: accountID, ChannelID: r.ChannelID, Provider: provider, TrackingNumber: NormalizeTrackingNumber(r.TrackingNumber),
		Recipient:       Recipient{Name: strings.TrimSpace(r.Recipient.Name), Email: strings.TrimSpace(r.Recipient.Email), Phone: strings.TrimSpace(r.Recipient.Phone)},
		CheckDelayHours: DefaultCheckDelayHours, MaxChecks: DefaultMaxChecks, ExternalData: maps.Clone(r.ExternalData),
	}
	if r.CheckDelayHours != nil {
		s.CheckDelayHours = *r.CheckDelayHours
	}
	if r.MaxChecks != nil {
		s.MaxChecks = *r.MaxChecks
	}
	return start(s, now), nil
}

// NewForShipment starts tracking a parcel of the account's shipment under
// id, with the number its carrier gave, as given, and the default check
// settings; awaitsCOD keeps it checked past delivery until the carrier
// reports the cash collected. Its first check is due at once.
func NewForShipment(id, accountID, channelID, provider, shipmentID, trackingNumber string, recipient Recipient, awaitsCOD bool, now time.Time) *Parcel {
	return start(Stored{ID: id, AccountID: accountID, ChannelID: channelID, Provider: provider, TrackingNumber: trackingNumber,
		ShipmentID: shipmentID, Recipient: recipient, CheckDelayHours: DefaultCheckDelayHours, MaxChecks: DefaultMaxChecks,
		AwaitsCOD: awaitsCOD}, now)
}

func start(s Stored, now time.Time) *Parcel {
	s.Status = carrier.StatusCreated
	s.Version = 1
	s.CreatedAt, s.UpdatedAt = now, now
	s.NextCheckAt = &now
	if s.ExternalData == nil {
		s.ExternalData = map[string]any{}
	}
	return &Parcel{s: s}
}

// Restore rebuilds a parcel a repository kept, with its updates oldest first.
func Restore(s Stored, updates []StatusUpdate) *Parcel {
	return &Parcel{s: s, updates: updates}
}

// Stored returns a copy of the parcel's state.
func (p *Parcel) Stored() Stored {
	s := p.s
	s.ExternalData = maps.Clone(p.s.ExternalData)
	return s
}

// ID returns the parcel's id.
func (p *Parcel) ID() string { return p.s.ID }

// Version counts the parcel's visible changes.
func (p *Parcel) Version() int { return p.s.Version }

// Status returns the parcel's standard status.
func (p *Parcel) Status() carrier.TrackingStatus { return p.s.Status }

// BelongsTo reports whether the parcel is the account's.
func (p *Parcel) BelongsTo(accountID string) bool { return p.s.AccountID == accountID }

// Internal reports whether the parcel was made for a shipment.
func (p *Parcel) Internal() bool { return p.s.ShipmentID != "" }

// Updates returns the status updates, newest first.
func (p *Parcel) Updates() []StatusUpdate {
	out := make([]StatusUpdate, len(p.updates))
	for i, u := range p.updates {
		out[len(p.updates)-1-i] = u
	}
	return out
}

// TakeAdded returns the status updates recorded since loading, once.
func (p *Parcel) TakeAdded() []StatusUpdate {
	a := p.added
	p.added = nil
	return a
}

// Edit changes what the client may change after creation; nil leaves a
// field as it is, and the recipient's fields are kept without white space
// around. An edit CheckEdit refuses changes nothing. It reports whether
// anything changed.
func (p *Parcel) Edit(name, email, phone *string, externalData map[string]any, now time.Time) (bool, error) {
	if err := CheckEdit(name, email, phone, externalData); err != nil {
		return false, err
	}
	r := p.s.Recipient
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&r.Name, name)
	set(&r.Email, email)
	set(&r.Phone, phone)
	changed := r != p.s.Recipient
	p.s.Recipient = r
	if externalData != nil && !reflect.DeepEqual(externalData, p.s.ExternalData) {
		p.s.ExternalData = maps.Clone(externalData)
		changed = true
	}
	if changed {
		p.touch(now)
	}
	return changed, nil
}

// CheckDelete allows deleting only parcels the client created: a shipment's
// parcels are tracked as long as the shipment exists.
func (p *Parcel) CheckDelete() error {
	if p.Internal() {
		return fault.Field("shipment_id", "this tracking parcel belongs to shipment "+p.s.ShipmentID+
			" and is tracked for it; only tracking parcels created through the API can be deleted")
	}
	return nil
}

// Touch marks a change without other effect (a deletion's last version).
func (p *Parcel) Touch(now time.Time) { p.touch(now) }

func (p *Parcel) touch(now time.Time) {
	p.s.Version++
	p.s.UpdatedAt = now
}
