package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// ErrCarrierUnavailable means the booking should be tried again later.
var ErrCarrierUnavailable = errors.New("carrier unavailable")

// BookShipment books one pending shipment with its carrier. GiveUp makes a
// carrier that cannot be reached a final refusal (the worker's last attempt).
type BookShipment struct {
	ShipmentID string
	GiveUp     bool
}

// BookShipmentHandler asks the carrier to create a pending shipment. The
// booking worker runs it outside any transaction.
type BookShipmentHandler struct {
	repo      domain.Repository
	channels  channels.Channels
	providers *carrier.Registry
	labels    LabelMerger
	clock     clock.Clock
	timeout   time.Duration // of one carrier call; the booking lease outlasts it
}

// NewBookShipmentHandler needs the carrier's channel (through the channels
// facade), the merger of its per-parcel labels and the time one carrier
// call may take.
func NewBookShipmentHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, labels LabelMerger, clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[BookShipment] {
	return usecase.Command(BookShipmentHandler{repo: repo, channels: ch, providers: providers, labels: labels, clock: clk, timeout: timeout}, obs)
}

// Handle books the shipment: the carrier's answer (created with tracking
// numbers and a merged label, or refused with its reasons) is recorded in a
// new short transaction with its events. A carrier that cannot be reached
// returns ErrCarrierUnavailable and changes nothing, unless the command
// gives up.
func (h BookShipmentHandler) Handle(ctx context.Context, cmd BookShipment) error {
	shipmentID, giveUp := cmd.ShipmentID, cmd.GiveUp
	sh, err := h.repo.Get(ctx, shipmentID)
	if fault.Is(err, fault.KindNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	if !sh.AwaitsCarrier() {
		return nil // already decided (another instance, or a redelivery)
	}
	st := sh.Stored()
	ch, err := h.channels.ChannelForUse(ctx, st.AccountID, st.ChannelID)
	if fault.Is(err, fault.KindUnavailable) {
		// The channels process cannot be asked now (ADR 0033): tried again
		// later, like a carrier that does not answer.
		return h.unavailable(ctx, shipmentID, giveUp, err)
	}
	if err != nil && !fault.Is(err, fault.KindNotFound) && !fault.Is(err, fault.KindForbidden) {
		return err // the worker tries again later
	}
	if err != nil || !ch.Active() {
		return h.reject(ctx, shipmentID, []domain.Problem{{Field: "shipping_channel_id", Message: "the shipping channel is no longer active"}})
	}
	p, _ := h.providers.Get(ch.Provider)
	shipper, ok := p.(carrier.Shipper)
	if !ok {
		return h.reject(ctx, shipmentID, []domain.Problem{{Field: "shipping_channel_id", Message: "provider " + ch.Provider + " cannot create shipments"}})
	}
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req := request(st)
	req.Booking = carrier.Booking{Key: st.ID, Handle: st.BookingHandle, Accepted: h.bookingAccepted(shipmentID)}
	created, err := shipper.CreateShipment(callCtx, carrier.Settings(ch.Settings), req)
	if problems, rejected := rejectionProblems(err); rejected {
		return h.reject(ctx, shipmentID, problems)
	}
	if err != nil {
		return h.unavailable(ctx, shipmentID, giveUp, err)
	}
	label, err := h.mergedLabel(callCtx, shipper, ch.Settings, created, st.LabelFormat)
	if err != nil {
		return h.unavailable(ctx, shipmentID, giveUp, err)
	}
	now := h.clock.Now()
	_, err = h.repo.Update(ctx, shipmentID, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.AwaitsCarrier() {
			return nil, nil
		}
		before := sh.Status()
		if err := sh.Booked(created.ProviderShipmentID, created.TrackingNumbers, created.Price, label, now); err != nil {
			return nil, err
		}
		sh.RequestTracking()
		events := []domain.Event{contract.ShipmentCreated{ShipmentEvent: shipmentEvent(sh, now)}}
		return withStatusChange(events, sh, before, now), nil
	})
	if fault.Is(err, fault.KindUnavailable) {
		// An answer the shipment cannot take (a tracking number missing
		// for a parcel) is tried again like no answer, and given up on
		// with the rest: retried without end it would book again forever.
		return h.unavailable(ctx, shipmentID, giveUp, err)
	}
	return err
}

// bookingAccepted records, in a short transaction of its own while the
// carrier call waits, the handle of a booking the carrier accepted, so the
// next attempt resumes it (ADR 0038).
func (h BookShipmentHandler) bookingAccepted(id string) func(context.Context, string) error {
	return func(ctx context.Context, handle string) error {
		_, err := h.repo.Update(ctx, id, func(sh *domain.Shipment) ([]domain.Event, error) {
			return nil, sh.BookingAccepted(handle)
		})
		return err
	}
}

func (h BookShipmentHandler) unavailable(ctx context.Context, id string, giveUp bool, cause error) error {
	if giveUp {
		return h.reject(ctx, id, []domain.Problem{{Message: "the carrier could not be reached; gave up after repeated attempts (" + cause.Error() + ")"}})
	}
	// Both: the worker retries on ErrCarrierUnavailable, and the use case
	// reports the run as unavailable, not as an unexpected error.
	return fmt.Errorf("%w: %w", ErrCarrierUnavailable, fault.Unavailable(cause.Error()))
}

func (h BookShipmentHandler) reject(ctx context.Context, id string, problems []domain.Problem) error {
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, id, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.AwaitsCarrier() {
			return nil, nil
		}
		sh.Rejected(problems, now)
		return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}, nil
	})
	if fault.Is(err, fault.KindNotFound) {
		return nil
	}
	return err
}

// mergedLabel joins the carrier's per-parcel labels into one file.
func (h BookShipmentHandler) mergedLabel(ctx context.Context, shipper carrier.Shipper, settings map[string]any, created carrier.CreatedShipment, format string) (domain.Label, error) {
	labels := created.Labels
	if len(labels) == 0 {
		var err error
		labels, err = shipper.Labels(ctx, carrier.Settings(settings), carrier.ShipmentRef{
			ProviderShipmentID: created.ProviderShipmentID, TrackingNumbers: created.TrackingNumbers}, format)
		if err != nil {
			return domain.Label{}, fmt.Errorf("fetching labels: %w", err)
		}
	}
	parts := make([][]byte, len(labels))
	for i, l := range labels {
		parts[i] = l.Data
	}
	data, err := h.labels.Merge(format, parts)
	if err != nil {
		return domain.Label{}, fmt.Errorf("merging labels: %w", err)
	}
	return domain.Label{Format: format, MIMEType: h.labels.MIMEType(format), Data: data}, nil
}

// rejectionProblems turns a carrier's refusal into problems.
func rejectionProblems(err error) ([]domain.Problem, bool) {
	refusals, refused := carrier.RefusalsOf(err)
	out := make([]domain.Problem, len(refusals))
	for i, r := range refusals {
		out[i] = domain.Problem{Field: r.Field, Message: r.Message}
	}
	return out, refused
}

// request translates a shipment into the carrier port's terms.
func request(st domain.Stored) carrier.ShipmentRequest {
	req := carrier.ShipmentRequest{
		Reference: st.ReferenceNumber, ProductType: st.ProductType, LabelFormat: st.LabelFormat,
		Sender:      carrier.Contact{CompanyName: st.Sender.CompanyName, FirstName: st.Sender.FirstName, LastName: st.Sender.LastName, Email: st.Sender.EmailAddress, Phone: st.Sender.PhoneNumber},
		Recipient:   carrier.Contact{CompanyName: st.Recipient.CompanyName, FirstName: st.Recipient.FirstName, LastName: st.Recipient.LastName, Email: st.Recipient.EmailAddress, Phone: st.Recipient.PhoneNumber},
		Origin:      st.Origin,
		Destination: st.Destination,
		PickupPoint: st.PickupPoint,
	}
	if d, err := time.Parse(time.DateOnly, st.ShippingDate); err == nil {
		req.ShippingDate = d
	}
	for _, p := range st.Parcels {
		req.Parcels = append(req.Parcels, carrier.Parcel{Type: p.ParcelType, Length: p.LengthDimension, Width: p.WidthDimension,
			Height: p.HeightDimension, DimensionUnit: p.DimensionUnit, Weight: p.WeightAmount, WeightUnit: p.WeightUnit})
	}
	if st.COD != nil {
		req.COD = &carrier.Money{Minor: st.COD.AmountMinor, Currency: st.COD.Currency}
	}
	return req
}
