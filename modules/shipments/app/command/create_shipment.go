package command

import (
	"context"
	"fmt"
	"slices"
	"strings"

	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// CreateShipment is a checked request for a new shipment, under the id the
// caller chose (it reads the shipment back by it). LabelFormat may be empty
// (the channel's default, else pdf); COD is nil without cash on delivery.
type CreateShipment struct {
	AccountID  string
	ShipmentID string
	Shipment   domain.State
	COD        *carrier.Money
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

// Handle checks the request against its channel and carrier, switches to
// the carrier's COD product when needed, and stores the shipment as pending;
// the booking worker calls the carrier afterwards, outside this request.
func (h CreateShipmentHandler) Handle(ctx context.Context, cmd CreateShipment) error {
	ch, err := h.channels.ChannelForUse(ctx, cmd.AccountID, cmd.Shipment.ChannelID)
	if fault.Is(err, fault.KindNotFound) {
		return fault.Field("shipping_channel_id", "does not name a shipping channel of this account")
	}
	if err != nil {
		return err
	}
	if !ch.Active() {
		return fault.Field("shipping_channel_id", "must be an active shipping channel (this one is "+ch.Status+"; validate it first)")
	}
	p, ok := h.providers.Get(ch.Provider)
	if _, ships := p.(carrier.Shipper); !ok || !ships {
		return fault.Field("shipping_channel_id", "provider "+ch.Provider+" cannot create shipments")
	}
	info := p.Info()
	st := cmd.Shipment
	errs := fault.FieldErrors{}
	st.LabelFormat = carrier.Settings(ch.Settings).LabelFormat(st.LabelFormat)
	if !slices.Contains(info.LabelFormats, st.LabelFormat) {
		errs.Add("label_format", "provider "+info.Code+" prints only: "+strings.Join(info.LabelFormats, ", "))
	}
	st.ProductType = productType(info, ch.Settings)
	if problem := parcelCount(info, st.ProductType, len(st.Parcels)); problem != "" {
		errs.Add("parcels", problem)
	}
	if cmd.COD != nil {
		cod, problem := codProduct(info, st.ProductType)
		if problem != "" {
			errs.Add("cash_on_delivery_amount", problem)
		}
		st.ProductType = cod
		st.COD = &domain.CashOnDelivery{AmountMinor: cmd.COD.Minor, Currency: cmd.COD.Currency}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	now := h.clock.Now()
	st.ID = cmd.ShipmentID
	st.AccountID = cmd.AccountID
	st.Provider = info.Code
	sh := domain.New(st, now)
	return h.repo.Add(ctx, sh, contract.ShipmentRequested{ShipmentEvent: shipmentEvent(sh, now)})
}

// productType is the channel's product, else the default the provider
// publishes for the setting (the one its adapter books), else its first.
func productType(info carrier.ProviderInfo, settings map[string]any) string {
	if p, ok := settings["productType"].(string); ok && p != "" {
		return p
	}
	for _, s := range info.Settings {
		if d, ok := s.Default.(string); ok && s.Key == "productType" && d != "" {
			return d
		}
	}
	if len(info.ProductTypes) > 0 {
		return info.ProductTypes[0].Code
	}
	return ""
}

// parcelCount says why n parcels are too many for product of the provider,
// "" when they are not: the limit GET /v1/providers publishes, the same
// number the carrier's adapter refuses past.
func parcelCount(info carrier.ProviderInfo, product string, n int) string {
	limit := info.ParcelLimit(product)
	if n <= limit {
		return ""
	}
	noun := "parcels"
	if limit == 1 {
		noun = "parcel"
	}
	if limit != info.MaxParcels {
		return fmt.Sprintf("product %s of provider %s takes at most %d %s per shipment; this shipment has %d", product, info.Code, limit, noun, n)
	}
	return fmt.Sprintf("provider %s takes at most %d %s per shipment; this shipment has %d", info.Code, limit, noun, n)
}

// codProduct returns the product that carries cash on delivery for product,
// or why there is none.
func codProduct(info carrier.ProviderInfo, product string) (string, string) {
	if !info.SupportsCOD {
		return product, "provider " + info.Code + " does not support cash on delivery"
	}
	for _, p := range info.ProductTypes {
		if p.Code != product {
			continue
		}
		switch {
		case p.CODProduct != "":
			return p.CODProduct, ""
		case p.SupportsCOD:
			return product, ""
		default:
			return product, "product " + product + " of provider " + info.Code + " does not support cash on delivery"
		}
	}
	return product, ""
}
