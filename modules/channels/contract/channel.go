// Package contract is the channels module's published language: the record
// other modules and webhooks see, the events it publishes and the facade
// other modules may call. The record is the events' snapshot, stored for
// good; the API answer and webhook payloads render it, so a change of its
// shape is a new event version (testdata/events, ADR 0030).
package contract

import "time"

// ShippingChannelSnapshot is a channel as its events carry it (every
// channel event, version 1), secrets masked: stored for good and read back
// by every later build, so its shape is kept in testdata/events and changes
// only with a new event version and an upcaster.
type ShippingChannelSnapshot struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Provider        string         `json:"provider"`
	Status          string         `json:"status"`
	Settings        map[string]any `json:"settings"`
	ValidationError *string        `json:"validation_error"`
	ValidatedAt     *time.Time     `json:"validated_at"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

// ShippingChannel is the public record of a channel: the API's answer and
// the "shipping_channel" of webhook payloads. It is built from the events'
// snapshot (Record), never the other way round: today it has the snapshot's
// shape; an API change the events should not carry gives it fields of its
// own and Record the mapping, and stored events stay as they are.
type ShippingChannel ShippingChannelSnapshot

// Record is the public record the snapshot shows.
func (s ShippingChannelSnapshot) Record() ShippingChannel { return ShippingChannel(s) }
