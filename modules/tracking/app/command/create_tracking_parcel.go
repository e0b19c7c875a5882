package command

import (
	"context"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// CreateTrackingParcel is a client's request to track a carrier's parcel.
// The caller chooses its id, and reads it back by it.
type CreateTrackingParcel struct {
	AccountID string
	ParcelID  string
	Parcel    domain.Request
}

// CreateTrackingParcelHandler starts tracking parcels.
type CreateTrackingParcelHandler struct {
	repo      domain.Repository
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
}

// NewCreateTrackingParcelHandler needs the channels facade to check the
// channel and the registry to know whether its carrier tracks.
func NewCreateTrackingParcelHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[CreateTrackingParcel] {
	return usecase.Command(CreateTrackingParcelHandler{repo: repo, channels: ch, providers: providers, clock: clk}, obs)
}

// Handle refuses a request with problems of its own before it looks at
// the channel, then checks the channel and stores the parcel with its first
// check due at once; the checker worker asks the carrier afterwards.
func (h CreateTrackingParcelHandler) Handle(ctx context.Context, cmd CreateTrackingParcel) error {
	if err := cmd.Parcel.Check(); err != nil {
		return err
	}
	ch, err := channels.ActiveChannel(ctx, h.channels, cmd.AccountID, cmd.Parcel.ChannelID)
	if err != nil {
		return err
	}
	if p, _ := h.providers.Get(ch.Provider); !tracks(p) {
		return fault.Field("shipping_channel_id", "provider "+ch.Provider+" cannot track parcels")
	}
	now := h.clock.Now()
	p, err := domain.New(cmd.ParcelID, cmd.AccountID, ch.Provider, cmd.Parcel, now)
	if err != nil {
		return err
	}
	return h.repo.Add(ctx, p, contract.TrackingParcelCreated{TrackingParcelEvent: parcelEvent(p, now)})
}

func tracks(p carrier.Provider) bool {
	_, ok := p.(carrier.Tracker)
	return ok
}
