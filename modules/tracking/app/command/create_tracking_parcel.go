package command

import (
	"context"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/ids"
)

// CreateTrackingParcel is a checked request to track a carrier's parcel.
type CreateTrackingParcel struct {
	AccountID string
	Parcel    domain.State // tracking number, channel, recipient, check settings, external data
}

// CreateTrackingParcelHandler starts tracking parcels.
type CreateTrackingParcelHandler struct {
	repo      domain.Repository
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
}

// NewCreateTrackingParcelHandler returns the handler.
func NewCreateTrackingParcelHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock) CreateTrackingParcelHandler {
	return CreateTrackingParcelHandler{repo: repo, channels: ch, providers: providers, clock: clk}
}

// Handle checks the channel and stores the parcel with its first check due
// at once; the checker worker asks the carrier afterwards.
func (h CreateTrackingParcelHandler) Handle(ctx context.Context, cmd CreateTrackingParcel) (contract.Detail, error) {
	ch, err := h.channels.ChannelForUse(ctx, cmd.AccountID, cmd.Parcel.ChannelID)
	if fault.Is(err, fault.KindNotFound) {
		return contract.Detail{}, fault.Field("shipping_channel_id", "does not name a shipping channel of this account")
	}
	if err != nil {
		return contract.Detail{}, err
	}
	if !ch.Active() {
		return contract.Detail{}, fault.Field("shipping_channel_id", "must be an active shipping channel (this one is "+ch.Status+"; validate it first)")
	}
	if p, _ := h.providers.Get(ch.Provider); !tracks(p) {
		return contract.Detail{}, fault.Field("shipping_channel_id", "provider "+ch.Provider+" cannot track parcels")
	}
	now := h.clock.Now()
	st := cmd.Parcel
	st.ID = ids.NewAt(ids.TrackingParcel, now)
	st.AccountID = cmd.AccountID
	st.Provider = ch.Provider
	p := domain.New(st, now)
	if err := h.repo.Add(ctx, p, contract.TrackingParcelCreated{TrackingParcelEvent: parcelEvent(p, now)}); err != nil {
		return contract.Detail{}, err
	}
	return Detail(p), nil
}

func tracks(p carrier.Provider) bool {
	_, ok := p.(carrier.Tracker)
	return ok
}
