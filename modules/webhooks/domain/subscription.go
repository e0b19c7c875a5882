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
// signed with its secret: made by NewSubscription, which enforces its rules,
// or by Restore in a repository; its state changes only through Apply
// (Stored hands out a copy).
type Subscription struct {
	s Stored
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
	return &Subscription{s: Stored{
		ID: id, AccountID: accountID, Name: strings.TrimSpace(f.Name), URL: f.URL,
		Events: uniqueEvents(f.Events), Secret: f.Secret, Active: f.Active, Version: 1, CreatedAt: now, UpdatedAt: now,
	}}, nil
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
func (sub *Subscription) Apply(c Change, eventTypes []string, now time.Time) error {
	if err := c.Check(eventTypes); err != nil {
		return err
	}
	if c.Name != nil {
		sub.s.Name = strings.TrimSpace(*c.Name)
	}
	if c.URL != nil {
		sub.s.URL = *c.URL
	}
	if c.Events != nil {
		sub.s.Events = uniqueEvents(c.Events)
	}
	if c.Secret != "" {
		sub.s.Secret = c.Secret
	}
	if c.Active != nil {
		sub.s.Active = *c.Active
	}
	sub.s.Version++
	sub.s.UpdatedAt = now
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

func (sub *Subscription) ID() string                    { return sub.s.ID }
func (sub *Subscription) AccountID() string             { return sub.s.AccountID }
func (sub *Subscription) BelongsTo(account string) bool { return sub.s.AccountID == account }
func (sub *Subscription) Name() string                  { return sub.s.Name }
func (sub *Subscription) URL() string                   { return sub.s.URL }
func (sub *Subscription) Events() []string              { return slices.Clone(sub.s.Events) }
func (sub *Subscription) Secret() string                { return sub.s.Secret }
func (sub *Subscription) Active() bool                  { return sub.s.Active }
func (sub *Subscription) Version() int                  { return sub.s.Version }
func (sub *Subscription) CreatedAt() time.Time          { return sub.s.CreatedAt }
func (sub *Subscription) UpdatedAt() time.Time          { return sub.s.UpdatedAt }

// Stored is everything a subscription is, as a repository keeps it.
type Stored struct {
	ID, AccountID, Name, URL string
	Events                   []string
	Secret                   string
	Active                   bool
	Version                  int
	CreatedAt, UpdatedAt     time.Time
}

// Stored returns a copy of the subscription's state.
func (sub *Subscription) Stored() Stored {
	s := sub.s
	s.Events = slices.Clone(sub.s.Events)
	return s
}

// Restore rebuilds a subscription a repository kept.
func Restore(s Stored) *Subscription { return &Subscription{s: s} }
