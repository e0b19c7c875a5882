package command

import (
	"context"
	"reflect"

	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// UpdateChannel changes the fields that are set; nil means unchanged.
type UpdateChannel struct {
	AccountID   string
	ID          string
	Name        *string
	Description *string
	// Settings replaces the settings (PUT) or, with MergeSettings, is merged
	// into them (PATCH; a null value removes a key). Nil leaves them alone.
	Settings      map[string]any
	MergeSettings bool
	Status        *string
}

// UpdateChannelHandler applies updates.
type UpdateChannelHandler struct {
	repo      domain.Repository
	providers *carrier.Registry
	clock     clock.Clock
}

// NewUpdateChannelHandler needs the registry for each provider's settings.
func NewUpdateChannelHandler(repo domain.Repository, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[UpdateChannel] {
	return usecase.Command(UpdateChannelHandler{repo: repo, providers: providers, clock: clk}, obs)
}

// Handle saves the change and publishes shipping_channel.updated (and
// status_changed when the status moved). An update that changes nothing
// publishes nothing.
func (h UpdateChannelHandler) Handle(ctx context.Context, cmd UpdateChannel) error {
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, cmd.ID, func(ch *domain.Channel) ([]domain.Event, error) {
		if err := owned(ch, cmd.AccountID); err != nil {
			return nil, err
		}
		before, settingsBefore := ch.Snapshot(), ch.Settings()
		if err := h.apply(ch, cmd); err != nil {
			return nil, err
		}
		if reflect.DeepEqual(before, ch.Snapshot()) && reflect.DeepEqual(settingsBefore, ch.Settings()) {
			return nil, nil
		}
		ch.Touch(now)
		events := []domain.Event{contract.ShippingChannelUpdated{ChannelEvent: channelEvent(ch, now)}}
		return withStatusChange(events, ch, domain.Status(before.Status), now), nil
	})
	return err
}

// apply checks every field first, so one answer names every problem.
func (h UpdateChannelHandler) apply(ch *domain.Channel, cmd UpdateChannel) error {
	errs := fault.FieldErrors{}
	if cmd.Name != nil {
		if p := domain.NameProblem(*cmd.Name); p != "" {
			errs.Add("name", p)
		}
	}
	var settings map[string]any
	var secretKeys map[string]bool
	if cmd.Settings != nil {
		p, ok := h.providers.Get(ch.Provider())
		if !ok {
			errs.Add("settings", "cannot change: provider "+ch.Provider()+" is no longer offered")
		} else {
			info := p.Info()
			secretKeys = info.SecretKeys()
			settings = keepMaskedSecrets(cmd.Settings, ch.Settings(), secretKeys)
			if cmd.MergeSettings {
				settings = mergeSettings(ch.Settings(), settings)
			}
			checkSettings(info, settings, errs)
		}
	}
	if cmd.Status != nil && !domain.ValidStatus(*cmd.Status) {
		errs.Add("status", "must be active or inactive")
	}
	if err := errs.Err(); err != nil {
		return err
	}
	if cmd.Name != nil {
		if err := ch.Rename(*cmd.Name); err != nil {
			return err
		}
	}
	if cmd.Description != nil {
		ch.Describe(*cmd.Description)
	}
	if settings != nil {
		ch.ReplaceSettings(settings, secretKeys)
	}
	if cmd.Status != nil && domain.Status(*cmd.Status) != ch.Status() {
		return ch.SetStatus(domain.Status(*cmd.Status))
	}
	return nil
}
