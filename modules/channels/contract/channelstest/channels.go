// Package channelstest is the channels facade in memory, for the tests of
// the modules that ask the channels module for a channel (shipments,
// tracking), so that each fakes the same contract the same way.
package channelstest

import (
	"context"
	"maps"
	"slices"
	"sync"

	channels "shipd/modules/channels/contract"
	"shipd/platform/fault"
)

// Channels is the channels facade over channels held in memory, answering
// as the channels module does: a channel it does not hold is not found, one
// of another account forbidden.
type Channels struct {
	mu       sync.Mutex
	channels map[string]channels.ChannelAccess
	failures map[string]error
	asked    int
}

// New holds chs.
func New(chs ...channels.ChannelAccess) *Channels {
	c := &Channels{channels: map[string]channels.ChannelAccess{}, failures: map[string]error{}}
	for _, ch := range chs {
		c.Put(ch)
	}
	return c
}

var _ channels.Channels = (*Channels)(nil)

// Put adds or replaces a channel.
func (c *Channels) Put(ch channels.ChannelAccess) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.channels[ch.ID] = ch
}

// Remove deletes a channel.
func (c *Channels) Remove(channelID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.channels, channelID)
}

// Fail makes every question about channelID answer err (the channels
// process unreachable, say); nil answers again.
func (c *Channels) Fail(channelID string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		delete(c.failures, channelID)
		return
	}
	c.failures[channelID] = err
}

// Asked counts the questions answered so far.
func (c *Channels) Asked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

// ChannelForUse returns the account's channel with its settings.
func (c *Channels) ChannelForUse(_ context.Context, accountID, channelID string) (channels.ChannelAccess, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	if err := c.failures[channelID]; err != nil {
		return channels.ChannelAccess{}, err
	}
	ch, ok := c.channels[channelID]
	if !ok {
		return channels.ChannelAccess{}, fault.NotFound("Shipping channel")
	}
	if ch.AccountID != accountID {
		return channels.ChannelAccess{}, fault.Forbidden("This shipping channel belongs to another account.")
	}
	ch.Settings = maps.Clone(ch.Settings) // each answer has settings of its own, as when decrypted
	return channels.WithKeeper(c, ch), nil
}

// RenewCredential keeps a renewed credential as the channels module does:
// only over a value the carrier retired.
func (c *Channels) RenewCredential(_ context.Context, r channels.CredentialRenewal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.failures[r.ChannelID]; err != nil {
		return err
	}
	ch, ok := c.channels[r.ChannelID]
	if !ok {
		return fault.NotFound("Shipping channel")
	}
	if ch.AccountID != r.AccountID {
		return fault.Forbidden("This shipping channel belongs to another account.")
	}
	if cur, _ := ch.Settings[r.Key].(string); slices.Contains(r.Retired, cur) {
		ch.Settings = maps.Clone(ch.Settings)
		ch.Settings[r.Key] = r.Renewed
		c.channels[r.ChannelID] = ch
	}
	return nil
}

// Changed is a test's step that changes the channel held as channelID as
// change says; the channel's settings are its own afterwards, as after an
// edit through the channels module.
func Changed(channelID string, change func(ch *channels.ChannelAccess)) func(*Channels) {
	return func(c *Channels) {
		c.mu.Lock()
		defer c.mu.Unlock()
		ch := c.channels[channelID]
		ch.Settings = maps.Clone(ch.Settings)
		change(&ch)
		c.channels[channelID] = ch
	}
}
