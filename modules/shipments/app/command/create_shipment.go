package command

import (
	"context"

	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// CreateShipment is a client's request for a new shipment, under the id
// the caller chose (it reads the shipment back by it).
type CreateShipment struct {
	AccountID  string
	ShipmentID string
	Shipment   domain.Request
}

// CreateShipmentHandler accepts shipments and queues their booking.
type CreateShipmentHandler struct {
	repo      domain.Repository
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
}

// NewCreateShipmentHandler needs the channels facade to check the channel
// and the registry for what its carrier accepts.
func NewCreateShipmentHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[CreateShipment] {
	return usecase.Command(CreateShipmentHandler{repo: repo, channels: ch, providers: providers, clock: clk}, obs)
}

// Handle refuses a request with problems of its own before it looks at
// the channel, then one the channel's carrier would not take, and stores
// the shipment as pending; the booking worker calls the carrier afterwards,
// outside this request.
func (h CreateShipmentHandler) Handle(ctx context.Context, cmd CreateShipment) error {
	now := h.clock.Now()
	if err := cmd.Shipment.Check(now); err != nil {
		return err
	}
	ch, err := channels.ActiveChannel(ctx, h.channels, cmd.AccountID, cmd.Shipment.ChannelID)
	if err != nil {
		return err
	}
	p, ok := h.providers.Get(ch.Provider)
	if _, ships := p.(carrier.Shipper); !ok || !ships {
		return fault.Field("shipping_channel_id", "provider "+ch.Provider+" cannot create shipments")
	}
	sh, err := domain.New(cmd.ShipmentID, cmd.AccountID, cmd.Shipment, p.Info(), carrier.Settings(ch.Settings), now)
	if err != nil {
		return err
	}
	return h.repo.Add(ctx, sh, contract.ShipmentRequested{ShipmentEvent: shipmentEvent(sh, now)})
}
