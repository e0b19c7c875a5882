// Package command holds the channel module's write use cases.
package command

import (
	"time"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/fault"
)

// snapshot is the channel as its events carry it.
func snapshot(ch *domain.Channel) contract.ShippingChannelSnapshot {
	return contract.ShippingChannelSnapshot(ch.Snapshot())
}

func channelEvent(ch *domain.Channel, now time.Time) contract.ChannelEvent {
	return contract.ChannelEvent{AccountID: ch.AccountID(), Version: ch.Version(), OccurredAt: now, ShippingChannel: snapshot(ch)}
}

// withStatusChange appends status_changed when the status moved.
func withStatusChange(events []domain.Event, ch *domain.Channel, before domain.Status, now time.Time) []domain.Event {
	if ch.Status() == before {
		return events
	}
	return append(events, contract.ShippingChannelStatusChanged{ChannelEvent: channelEvent(ch, now), PreviousStatus: string(before)})
}

var errForeign = fault.Forbidden("This shipping channel belongs to another account.")

// owned loads nothing: it turns a foreign channel into a 403.
func owned(ch *domain.Channel, accountID string) error {
	if !ch.BelongsTo(accountID) {
		return errForeign
	}
	return nil
}
