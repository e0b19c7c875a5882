package domain

import "time"

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
	if c.validationError != "" {
		e := c.validationError
		verr = &e
	}
	return Snapshot{
		ID: c.id, Name: c.name, Description: c.description, Provider: c.provider, Status: string(c.status),
		Settings: c.MaskedSettings(), ValidationError: verr, ValidatedAt: c.validatedAt,
		CreatedAt: c.createdAt, UpdatedAt: c.updatedAt,
	}
}

// Stored is everything a repository keeps of a channel.
type Stored struct {
	ID, AccountID, Name, Description, Provider string
	Status                                     Status
	Settings                                   map[string]any
	SecretKeys                                 map[string]bool
	ValidationError                            string
	ValidatedAt                                *time.Time
	Version                                    int
	CreatedAt, UpdatedAt                       time.Time
}

// Stored returns the channel's state for a repository.
func (c *Channel) Stored() Stored {
	return Stored{
		ID: c.id, AccountID: c.accountID, Name: c.name, Description: c.description, Provider: c.provider,
		Status: c.status, Settings: c.Settings(), SecretKeys: c.SecretKeys(), ValidationError: c.validationError,
		ValidatedAt: c.validatedAt, Version: c.version, CreatedAt: c.createdAt, UpdatedAt: c.updatedAt,
	}
}

// Restore rebuilds a channel a repository kept.
func Restore(s Stored) *Channel {
	return &Channel{
		id: s.ID, accountID: s.AccountID, name: s.Name, description: s.Description, provider: s.Provider,
		status: s.Status, settings: s.Settings, secretKeys: s.SecretKeys, validationError: s.ValidationError,
		validatedAt: s.ValidatedAt, version: s.Version, createdAt: s.CreatedAt, updatedAt: s.UpdatedAt,
	}
}
