// Package dispatching is what the dispatch module's commands and queries
// share about a channel's carrier: the channel opened for dispatch, the
// windows it offers, and the answer a failed carrier call becomes.
package dispatching

import (
	"context"
	"errors"
	"log/slog"

	channels "shipd/modules/channels/contract"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Channel is an active channel of the account and its provider's
// pickups and manifests: a field fault on shipping_channel_id when it is
// not one, or its provider offers neither.
type Channel struct {
	Access     channels.ChannelAccess
	Info       carrier.ProviderInfo
	Dispatcher carrier.Dispatcher // nil: the provider offers no operation of its own (shipd's manifest)
}

func OpenChannel(ctx context.Context, chs channels.Channels, providers *carrier.Registry, accountID, channelID string) (Channel, error) {
	ch, err := channels.ActiveChannel(ctx, chs, accountID, channelID)
	if err != nil {
		return Channel{}, err
	}
	return open(ch, providers)
}

// OpenPathChannel is OpenChannel for a channel named in the path: one that
// does not exist is 404, another account's 403 (the facade's faults), one
// that is not active a conflict.
func OpenPathChannel(ctx context.Context, chs channels.Channels, providers *carrier.Registry, accountID, channelID string) (Channel, error) {
	ch, err := chs.ChannelForUse(ctx, accountID, channelID)
	if err != nil {
		return Channel{}, err
	}
	if !ch.Active() {
		return Channel{}, fault.Conflict("channel_not_active", "The shipping channel is "+ch.Status+"; validate it first.")
	}
	return open(ch, providers)
}

func open(ch channels.ChannelAccess, providers *carrier.Registry) (Channel, error) {
	p, ok := providers.Get(ch.Provider)
	if !ok {
		return Channel{}, fault.Field("shipping_channel_id", "uses provider "+ch.Provider+", which is no longer offered")
	}
	d, _ := carrier.DispatcherOf(p)
	return Channel{Access: ch, Info: p.Info(), Dispatcher: d}, nil
}

// Settings are the channel's carrier settings.
func (c Channel) Settings() carrier.Settings { return carrier.Settings(c.Access.Settings) }

// CarrierFault is what the API answers for a carrier call that failed:
// the carrier's refusals as field problems (under prefix), anything else
// a 503 saying what was not done.
func CarrierFault(ctx context.Context, provider, what, notDone string, err error) error {
	if refusals, refused := carrier.RefusalsOf(err); refused {
		fields := fault.FieldErrors{}
		for _, r := range refusals {
			field := r.Field
			if field == "" {
				field = "carrier"
			}
			fields.Add(field, r.Message)
		}
		return &fault.Error{Kind: fault.KindValidation, Code: "carrier_rejected",
			Message: "The carrier " + provider + " refused the " + what + ".", Fields: fields}
	}
	if errors.Is(err, carrier.ErrNotOffered) {
		return fault.Field("shipping_channel_id", "uses provider "+provider+", which offers no "+what+" through its API")
	}
	slog.WarnContext(ctx, "carrier unavailable", "provider", provider, "operation", what, "err", err)
	return fault.Unavailable("The carrier " + provider + " could not be reached; " + notDone + " Try again later.")
}
