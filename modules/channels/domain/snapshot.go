package domain

import (
	"maps"
	"time"
)

// Snapshot is the channel as the outside sees it, secrets masked. Its fields
// match contract.ShippingChannelSnapshot one for one, so a conversion turns
// one into the other.
type Snapshot struct {
	ID              string
	Name            string
	Description     string
	Provider        string
	Status          string
	Settings        map[string]any
	ValidationError *string
	ValidatedAt     *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Snapshot returns the channel's public view.
func (c *Channel) Snapshot() Snapshot {
	var verr *string
	if c.s.ValidationError != "" {
		e := c.s.ValidationError
		verr = &e
	}
	return Snapshot{
		ID: c.s.ID, Name: c.s.Name, Description: c.s.Description, Provider: c.s.Provider, Status: string(c.s.Status),
		Settings: c.MaskedSettings(), ValidationError: verr, ValidatedAt: c.s.ValidatedAt,
		CreatedAt: c.s.CreatedAt, UpdatedAt: c.s.UpdatedAt,
	}
}

// Stored is everything a channel is, as a repository keeps it.
type Stored struct {
	ID, AccountID, Name, Description, Provider string
	Status                                     Status
	Settings                                   map[string]any  // decrypted, secrets included
	SecretKeys                                 map[string]bool // which settings are secret
	ValidationError                            string
	ValidatedAt                                *time.Time
	Version                                    int
	CreatedAt, UpdatedAt                       time.Time
}

// Stored returns a copy of the channel's state.
func (c *Channel) Stored() Stored {
	s := c.s
	s.Settings = maps.Clone(c.s.Settings)
	s.SecretKeys = maps.Clone(c.s.SecretKeys)
	return s
}

// Restore rebuilds a channel a repository kept.
func Restore(s Stored) *Channel { return &Channel{s: s} }
