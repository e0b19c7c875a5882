// Package domain is the shipping channel: a merchant's configured carrier
// account, its settings and its lifecycle. Pure Go.
package domain

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// MaskedSecret is shown instead of every secret setting value.
const MaskedSecret = "••••••••"

// The bounds of a channel's texts, in characters.
const (
	MaxNameLength        = 255
	MaxDescriptionLength = 2000
)

// Providers are the carriers this build offers, by code: the app's
// carrier.Registry. A channel's provider must be one, and its settings
// keep that provider's schema.
type Providers interface {
	Get(code string) (carrier.Provider, bool)
}

// Channel is one carrier configuration of an account: made by NewChannel,
// which enforces its rules, or by Restore in a repository; its state changes
// only through the methods below (Stored hands out a copy).
type Channel struct {
	s            Stored
	stopTracking bool // Deleted's, until the repository takes it
}

// NewChannel makes a draft channel of the account under id: a name (kept
// without white space around), a description, a provider that providers
// offer and settings (nil: none) that keep its schema, whose secret ones
// are encrypted and masked. It refuses a description that is too long
// alone (CheckDescription), then every other problem at once, each as a
// validation fault naming the field (settings.<key> for a setting).
func NewChannel(id, accountID, name, description, provider string, settings map[string]any, providers Providers, now time.Time) (*Channel, error) {
	if err := CheckDescription(description); err != nil {
		return nil, err
	}
	errs := fault.FieldErrors{}
	if p := nameProblem(name); p != "" {
		errs.Add("name", p)
	}
	var info carrier.ProviderInfo
	switch p, ok := providers.Get(provider); {
	case provider == "":
		errs.Add("provider", "is required")
	case !ok:
		errs.Add("provider", "must be one of the providers of GET /v1/providers")
	default:
		info = p.Info()
		errs.Merge("settings.", info.ValidateSettings(settings))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if settings == nil {
		settings = map[string]any{}
	}
	return &Channel{s: Stored{
		ID: id, AccountID: accountID, Name: strings.TrimSpace(name), Description: description, Provider: provider,
		Status: StatusDraft, Settings: maps.Clone(settings), SecretKeys: info.SecretKeys(),
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}}, nil
}

// CheckDescription names the problem of a description, nil when it has
// none. NewChannel and Edit check it first and answer it alone, before the
// other fields: the API always has (it checked descriptions before anything
// else). It is for callers that answer it before the channel is looked up.
func CheckDescription(description string) error {
	if p := carrier.TextProblem(description); p != "" {
		return fault.Field("description", p)
	}
	if utf8.RuneCountInString(description) > MaxDescriptionLength {
		return fault.Field("description", "must be at most "+strconv.Itoa(MaxDescriptionLength)+" characters")
	}
	return nil
}

// nameProblem says what is wrong with a channel name, or "" when nothing is.
func nameProblem(name string) string {
	n := strings.TrimSpace(name)
	if n == "" {
		return "is required"
	}
	if p := carrier.NameProblem(n); p != "" {
		return p
	}
	if utf8.RuneCountInString(n) > MaxNameLength {
		return "must be at most " + strconv.Itoa(MaxNameLength) + " characters"
	}
	return ""
}

// Edit is a client's change of a channel; nil leaves a field as it is.
type Edit struct {
	Name        *string
	Description *string
	// Settings replace the settings or, with MergeSettings, are merged into
	// them (a null value removes a key); a secret sent back as the mask
	// keeps its value. Nil leaves them alone.
	Settings      map[string]any
	MergeSettings bool
	// Status is a user's pause (inactive) or resume (active); a status the
	// channel has already is no change.
	Status *string
}

// Edit applies e, or refuses it whole and changes nothing: a description
// that is too long alone (CheckDescription), then every problem of the name,
// the settings (their provider still offered, its schema kept) and the
// status named at once, then a status the channel cannot take (an active
// one before its settings passed validation; draft and error are the
// service's to set).
// Changed settings have not been checked with the carrier, so the channel
// goes back to draft.
func (c *Channel) Edit(e Edit, providers Providers) error {
	if e.Description != nil {
		if err := CheckDescription(*e.Description); err != nil {
			return err
		}
	}
	errs := fault.FieldErrors{}
	if e.Name != nil {
		if p := nameProblem(*e.Name); p != "" {
			errs.Add("name", p)
		}
	}
	var settings map[string]any
	var secretKeys map[string]bool
	if e.Settings != nil {
		p, ok := providers.Get(c.s.Provider)
		if !ok {
			errs.Add("settings", "cannot change: provider "+c.s.Provider+" is no longer offered")
		} else {
			info := p.Info()
			secretKeys = info.SecretKeys()
			settings = keepMaskedSecrets(e.Settings, c.s.Settings, secretKeys)
			if e.MergeSettings {
				settings = mergeSettings(c.s.Settings, settings)
			}
			errs.Merge("settings.", info.ValidateSettings(settings))
		}
	}
	if e.Status != nil && !ValidStatus(*e.Status) {
		errs.Add("status", "must be active or inactive")
	}
	if err := errs.Err(); err != nil {
		return err
	}
	next := *c
	if e.Name != nil {
		next.s.Name = strings.TrimSpace(*e.Name)
	}
	if e.Description != nil {
		next.s.Description = *e.Description
	}
	if settings != nil {
		next.replaceSettings(settings, secretKeys)
	}
	if e.Status != nil && Status(*e.Status) != next.s.Status {
		if err := next.setStatus(Status(*e.Status)); err != nil {
			return err
		}
	}
	*c = next
	return nil
}

// replaceSettings installs new settings. Changed settings have not been
// checked with the carrier, so the channel goes back to draft.
func (c *Channel) replaceSettings(settings map[string]any, secretKeys map[string]bool) {
	if reflect.DeepEqual(settings, c.s.Settings) {
		return
	}
	c.s.Settings = maps.Clone(settings)
	c.s.SecretKeys = maps.Clone(secretKeys)
	c.s.Status = StatusDraft
	c.s.ValidationError = ""
	c.s.ValidatedAt = nil
}

// keepMaskedSecrets lets a client send back the record it read: a secret
// whose value is still the mask keeps its stored value.
func keepMaskedSecrets(next, current map[string]any, secret map[string]bool) map[string]any {
	out := maps.Clone(next)
	for k, v := range next {
		if s, ok := v.(string); ok && s == MaskedSecret && secret[k] {
			if cur, had := current[k]; had {
				out[k] = cur
			} else {
				delete(out, k)
			}
		}
	}
	return out
}

// mergeSettings applies a partial update: keys with null are removed.
func mergeSettings(current, patch map[string]any) map[string]any {
	out := maps.Clone(current)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// setStatus is a user's request to pause (inactive) or resume (active) the
// channel. Only a channel whose current settings passed validation may be
// active; draft and error are the service's to set.
func (c *Channel) setStatus(s Status) error {
	switch s {
	case StatusInactive:
		c.s.Status = StatusInactive
	case StatusActive:
		if c.s.ValidatedAt == nil || c.s.ValidationError != "" {
			return fault.Field("status", "cannot become active before its settings pass validation: POST /v1/shipping-channels/"+c.s.ID+"/validate")
		}
		c.s.Status = StatusActive
	default:
		return fault.Field("status", "must be active or inactive")
	}
	return nil
}

// ValidationPassed records that the carrier accepted the settings. A paused
// channel stays paused: validation never resumes deliveries by itself.
func (c *Channel) ValidationPassed(now time.Time) {
	c.s.ValidationError = ""
	c.s.ValidatedAt = &now
	if c.s.Status != StatusInactive {
		c.s.Status = StatusActive
	}
}

// ValidationFailed records the carrier's reason for refusing the settings.
func (c *Channel) ValidationFailed(reason string) {
	c.s.ValidationError = reason
	c.s.ValidatedAt = nil
	if c.s.Status != StatusInactive {
		c.s.Status = StatusError
	}
}

// RenewSecret stores renewed as the secret setting key when its value is
// one of retired: the carrier renewed a credential on its own (a rotated
// refresh token, ADR 0042). It reports whether it did; any other value
// (the merchant's new one, or one renewed since) is kept. It is no change
// a client made: the version, the update time, the status and its
// validation stay as they are, and no event is published.
func (c *Channel) RenewSecret(key string, retired []string, renewed string) (bool, error) {
	if !c.s.SecretKeys[key] {
		return false, fault.Invalid("setting " + key + " of channel " + c.s.ID + " is not a secret; only carrier credentials are renewed")
	}
	if renewed == "" {
		return false, fault.Invalid("a renewed " + key + " must not be empty")
	}
	cur, _ := c.s.Settings[key].(string)
	if cur == renewed || !slices.Contains(retired, cur) {
		return false, nil
	}
	c.s.Settings = maps.Clone(c.s.Settings)
	c.s.Settings[key] = renewed
	return true, nil
}

// Touch marks a saved change: a new version and update time.
func (c *Channel) Touch(now time.Time) {
	c.s.Version++
	c.s.UpdatedAt = now
}

// BelongsTo reports whether the channel is the account's.
func (c *Channel) BelongsTo(accountID string) bool { return c.s.AccountID == accountID }

// Getters.
func (c *Channel) ID() string                  { return c.s.ID }
func (c *Channel) AccountID() string           { return c.s.AccountID }
func (c *Channel) Name() string                { return c.s.Name }
func (c *Channel) Provider() string            { return c.s.Provider }
func (c *Channel) Status() Status              { return c.s.Status }
func (c *Channel) Version() int                { return c.s.Version }
func (c *Channel) Settings() map[string]any    { return maps.Clone(c.s.Settings) }
func (c *Channel) SecretKeys() map[string]bool { return maps.Clone(c.s.SecretKeys) }

// MaskedSettings returns the settings with every secret value masked.
func (c *Channel) MaskedSettings() map[string]any {
	out := make(map[string]any, len(c.s.Settings))
	for k, v := range c.s.Settings {
		if c.s.SecretKeys[k] {
			v = MaskedSecret
		}
		out[k] = v
	}
	return out
}
