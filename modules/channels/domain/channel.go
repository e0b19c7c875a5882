// Package domain is the shipping channel: a merchant's configured carrier
// account, its settings and its lifecycle. Pure Go.
package domain

import (
	"maps"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"shipd/platform/fault"
)

// MaskedSecret is shown instead of every secret setting value.
const MaskedSecret = "••••••••"

// MaxNameLength bounds channel names.
const MaxNameLength = 255

// Channel is one carrier configuration of an account.
type Channel struct {
	id              string
	accountID       string
	name            string
	description     string
	provider        string
	status          Status
	settings        map[string]any  // decrypted, secrets included
	secretKeys      map[string]bool // which settings are secret
	validationError string
	validatedAt     *time.Time
	version         int
	createdAt       time.Time
	updatedAt       time.Time
}

// NewChannel makes a draft channel. settings must already satisfy the
// provider's schema; secretKeys names the settings to encrypt and mask.
func NewChannel(id, accountID, name, description, provider string, settings map[string]any, secretKeys map[string]bool, now time.Time) (*Channel, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return &Channel{
		id: id, accountID: accountID, name: strings.TrimSpace(name), description: description, provider: provider,
		status: StatusDraft, settings: maps.Clone(settings), secretKeys: maps.Clone(secretKeys),
		version: 1, createdAt: now, updatedAt: now,
	}, nil
}

// NameProblem says what is wrong with a channel name, or "" when nothing is.
func NameProblem(name string) string {
	n := strings.TrimSpace(name)
	if n == "" {
		return "is required"
	}
	if utf8.RuneCountInString(n) > MaxNameLength {
		return "must be at most 255 characters"
	}
	return ""
}

func checkName(name string) error {
	if p := NameProblem(name); p != "" {
		return fault.Field("name", p)
	}
	return nil
}

// Rename sets the name, trimmed; a name NameProblem objects to is refused as
// a fault on name.
func (c *Channel) Rename(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	c.name = strings.TrimSpace(name)
	return nil
}

// Describe changes the description.
func (c *Channel) Describe(description string) { c.description = description }

// ReplaceSettings installs new settings. Changed settings have not been
// checked with the carrier, so the channel goes back to draft.
func (c *Channel) ReplaceSettings(settings map[string]any, secretKeys map[string]bool) {
	if reflect.DeepEqual(settings, c.settings) {
		return
	}
	c.settings = maps.Clone(settings)
	c.secretKeys = maps.Clone(secretKeys)
	c.status = StatusDraft
	c.validationError = ""
	c.validatedAt = nil
}

// SetStatus is a user's request to pause (inactive) or resume (active) the
// channel. Only a channel whose current settings passed validation may be
// active; draft and error are the service's to set.
func (c *Channel) SetStatus(s Status) error {
	switch s {
	case StatusInactive:
		c.status = StatusInactive
	case StatusActive:
		if c.validatedAt == nil || c.validationError != "" {
			return fault.Field("status", "cannot become active before its settings pass validation: POST /v1/shipping-channels/"+c.id+"/validate")
		}
		c.status = StatusActive
	default:
		return fault.Field("status", "must be active or inactive")
	}
	return nil
}

// ValidationPassed records that the carrier accepted the settings. A paused
// channel stays paused: validation never resumes deliveries by itself.
func (c *Channel) ValidationPassed(now time.Time) {
	c.validationError = ""
	c.validatedAt = &now
	if c.status != StatusInactive {
		c.status = StatusActive
	}
}

// ValidationFailed records the carrier's reason for refusing the settings.
func (c *Channel) ValidationFailed(reason string) {
	c.validationError = reason
	c.validatedAt = nil
	if c.status != StatusInactive {
		c.status = StatusError
	}
}

// Touch marks a saved change: a new version and update time.
func (c *Channel) Touch(now time.Time) {
	c.version++
	c.updatedAt = now
}

// BelongsTo reports whether the channel is the account's.
func (c *Channel) BelongsTo(accountID string) bool { return c.accountID == accountID }

// Getters.
func (c *Channel) ID() string                  { return c.id }
func (c *Channel) AccountID() string           { return c.accountID }
func (c *Channel) Name() string                { return c.name }
func (c *Channel) Provider() string            { return c.provider }
func (c *Channel) Status() Status              { return c.status }
func (c *Channel) Version() int                { return c.version }
func (c *Channel) Settings() map[string]any    { return maps.Clone(c.settings) }
func (c *Channel) SecretKeys() map[string]bool { return maps.Clone(c.secretKeys) }

// MaskedSettings returns the settings with every secret value masked.
func (c *Channel) MaskedSettings() map[string]any {
	out := make(map[string]any, len(c.settings))
	for k, v := range c.settings {
		if c.secretKeys[k] {
			v = MaskedSecret
		}
		out[k] = v
	}
	return out
}
