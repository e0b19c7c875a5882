// Package domain is the webhooks module's model: subscriptions, the
// deliveries owed to them with their retry schedule, and how a delivery is
// signed. Pure Go.
package domain

import (
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"
	"time"
)

// MinSecretLength is the shortest signing secret a subscription accepts.
const MinSecretLength = 8

// Subscription is an account's wish to receive some event types at a URL,
// signed with its secret.
type Subscription struct {
	id        string
	accountID string
	name      string
	url       string
	events    []string
	secret    string
	active    bool
	version   int
	createdAt time.Time
	updatedAt time.Time
}

// Fields are what a client sets on a new subscription: a name (kept
// without white space around), a delivery URL, the event types (nil: none
// given; a repeat is kept once), the signing secret and whether it is
// active. Check says what their rules are.
type Fields struct {
	Name   string
	URL    string
	Events []string
	Secret string // the client's, or one from GenerateSecret, which the caller shows once
	Active bool
}

// NewSubscription starts a subscription of the account under id, with
// fields f: it refuses what f.Check refuses; eventTypes are the event types
// a subscription may choose.
func NewSubscription(id, accountID string, f Fields, eventTypes []string, now time.Time) (*Subscription, error) {
	if err := f.Check(eventTypes); err != nil {
		return nil, err
	}
	return &Subscription{
		id: id, accountID: accountID, name: strings.TrimSpace(f.Name), url: f.URL,
		events: uniqueEvents(f.Events), secret: f.Secret, active: f.Active, version: 1, createdAt: now, updatedAt: now,
	}, nil
}

// Change is a client's update; nil (or empty Secret) keeps the current
// value. Check says what its rules are.
type Change struct {
	Name   *string
	URL    *string
	Events []string
	Secret string
	Active *bool
}

// Apply sets what c names, bumps the version and stamps now; it refuses
// what c.Check refuses (eventTypes are the event types a subscription may
// choose), and then changes nothing.
func (s *Subscription) Apply(c Change, eventTypes []string, now time.Time) error {
	if err := c.Check(eventTypes); err != nil {
		return err
	}
	if c.Name != nil {
		s.name = strings.TrimSpace(*c.Name)
	}
	if c.URL != nil {
		s.url = *c.URL
	}
	if c.Events != nil {
		s.events = uniqueEvents(c.Events)
	}
	if c.Secret != "" {
		s.secret = c.Secret
	}
	if c.Active != nil {
		s.active = *c.Active
	}
	s.version++
	s.updatedAt = now
	return nil
}

// GenerateSecret returns a fresh random signing secret (192 bits).
func GenerateSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

func uniqueEvents(events []string) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func (s *Subscription) ID() string                    { return s.id }
func (s *Subscription) AccountID() string             { return s.accountID }
func (s *Subscription) BelongsTo(account string) bool { return s.accountID == account }
func (s *Subscription) Name() string                  { return s.name }
func (s *Subscription) URL() string                   { return s.url }
func (s *Subscription) Events() []string              { return slices.Clone(s.events) }
func (s *Subscription) Secret() string                { return s.secret }
func (s *Subscription) Active() bool                  { return s.active }
func (s *Subscription) Version() int                  { return s.version }
func (s *Subscription) CreatedAt() time.Time          { return s.createdAt }
func (s *Subscription) UpdatedAt() time.Time          { return s.updatedAt }

// Stored is a subscription as a repository keeps it.
type Stored struct {
	ID, AccountID, Name, URL string
	Events                   []string
	Secret                   string
	Active                   bool
	Version                  int
	CreatedAt, UpdatedAt     time.Time
}

// Stored returns what a repository saves.
func (s *Subscription) Stored() Stored {
	return Stored{ID: s.id, AccountID: s.accountID, Name: s.name, URL: s.url, Events: s.Events(), Secret: s.secret,
		Active: s.active, Version: s.version, CreatedAt: s.createdAt, UpdatedAt: s.updatedAt}
}

// Restore rebuilds a subscription a repository loaded.
func Restore(st Stored) *Subscription {
	return &Subscription{id: st.ID, accountID: st.AccountID, name: st.Name, url: st.URL, events: st.Events, secret: st.Secret,
		active: st.Active, version: st.Version, createdAt: st.CreatedAt, updatedAt: st.UpdatedAt}
}
