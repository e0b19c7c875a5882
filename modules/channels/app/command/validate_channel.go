package command

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// validationTimeout bounds one credentials check with a carrier.
const validationTimeout = 20 * time.Second

// ValidateChannel asks the carrier whether a channel's settings work.
type ValidateChannel struct {
	AccountID string
	ID        string
}

// ValidateChannelHandler checks credentials with the carrier.
type ValidateChannelHandler struct {
	repo      domain.Repository
	providers *carrier.Registry
	clock     clock.Clock
}

// NewValidateChannelHandler needs the registry for the channel's carrier.
func NewValidateChannelHandler(repo domain.Repository, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[ValidateChannel] {
	return usecase.Command(ValidateChannelHandler{repo: repo, providers: providers, clock: clk}, obs)
}

// Handle calls the carrier outside any transaction, handing it the
// channel's keeper of renewed credentials (ADR 0042), then records the result
// in a new short one: active and shipping_channel.validated, or error with
// the reason, which it then returns as a validation fault on the settings
// field the carrier named (the refusal is recorded, and the caller learns
// why). A carrier that cannot be reached changes nothing (503).
func (h ValidateChannelHandler) Handle(ctx context.Context, cmd ValidateChannel) error {
	ch, err := h.repo.Get(ctx, cmd.ID)
	if err != nil {
		return err
	}
	if err := owned(ch, cmd.AccountID); err != nil {
		return err
	}
	p, ok := h.providers.Get(ch.Provider())
	if !ok {
		return fault.Field("provider", "provider "+ch.Provider()+" is no longer offered")
	}
	checked := ch.Settings()
	keeper := &validationKeeper{repo: h.repo, accountID: cmd.AccountID, channelID: cmd.ID}
	callCtx, cancel := context.WithTimeout(ctx, validationTimeout)
	verr := p.ValidateCredentials(callCtx, carrier.Settings(checked).WithKeeper(keeper))
	cancel()
	checked = keeper.renewedSettings(checked)
	refusals, refused := carrier.RefusalsOf(verr)
	if verr != nil && !refused {
		slog.WarnContext(ctx, "carrier unavailable during validation", "provider", ch.Provider(), "channel_id", ch.ID(), "err", verr)
		return fault.Unavailable("The carrier " + ch.Provider() + " could not be reached; the channel was not changed. Try again later.")
	}
	now := h.clock.Now()
	_, err = h.repo.Update(ctx, cmd.ID, func(ch *domain.Channel) ([]domain.Event, error) {
		if !reflect.DeepEqual(ch.Settings(), checked) {
			return nil, fault.Conflict("channel_changed", "The channel's settings changed while they were being validated; validate again.")
		}
		before := ch.Status()
		ch.Touch(now)
		var events []domain.Event
		if !refused {
			ch.ValidationPassed(now)
			events = append(events, contract.ShippingChannelValidated{ChannelEvent: channelEvent(ch, now)})
		} else {
			ch.ValidationFailed(verr.Error())
			if ch.Status() == before {
				events = append(events, contract.ShippingChannelUpdated{ChannelEvent: channelEvent(ch, now)})
			}
		}
		return withStatusChange(events, ch, before, now), nil
	})
	if err != nil || !refused {
		return err
	}
	fields := fault.FieldErrors{}
	messages := make([]string, len(refusals))
	for i, r := range refusals {
		field := "settings"
		if r.Field != "" {
			field += "." + r.Field
		}
		fields.Add(field, r.Message)
		messages[i] = r.Message
	}
	return &fault.Error{Kind: fault.KindValidation, Code: "validation_failed",
		Message: "The carrier rejected the channel's settings: " + strings.Join(messages, "; "),
		Fields:  fields}
}
