package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/failpoint"
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
	// Retried says an earlier attempt may have reached the carrier (the
	// worker's claim counts attempts): a carrier that can be asked
	// (carrier.BookingFinder) is asked for a booking under the key first.
	Retried bool
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

// Handle takes the shipment's booking one recorded step further (ADR 0041).
// While the carrier holds nothing, it books: a refusal is recorded as one, a
// carrier that cannot be reached returns ErrCarrierUnavailable (unless the
// command gives up), and an acceptance is recorded at once, in a short
// transaction of its own, before anything else can fail. Then, and on every
// later attempt, it fetches and merges the label: a failure is counted and
// retried, never booked again, and the last failure leaves the shipment
// created without a label, the carrier's still.
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
		return h.unavailable(ctx, sh, giveUp, err)
	}
	if err != nil && !fault.Is(err, fault.KindNotFound) && !fault.Is(err, fault.KindForbidden) {
		return err // the worker tries again later
	}
	if err != nil || !ch.Active() {
		return h.refuse(ctx, sh, giveUp, domain.Problem{Field: "shipping_channel_id", Message: "the shipping channel is no longer active"})
	}
	p, _ := h.providers.Get(ch.Provider)
	shipper, ok := p.(carrier.Shipper)
	if !ok {
		return h.refuse(ctx, sh, giveUp, domain.Problem{Field: "shipping_channel_id", Message: "provider " + ch.Provider + " cannot create shipments"})
	}
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	settings := carrier.Settings(ch.Settings)
	var labels []carrier.Label // the carrier's answer's, when it came with them
	if !sh.HeldByCarrier() {
		if st, err = h.findBooking(callCtx, shipper, settings, st, cmd.Retried); err != nil {
			return h.unavailable(ctx, sh, giveUp, err)
		}
		created, err := h.book(callCtx, shipper, settings, st)
		if err != nil {
			return h.bookingFailed(ctx, sh, giveUp, err)
		}
		if err := failpoint.Hit(failpoint.AfterCarrierAnswer); err != nil {
			return err
		}
		if sh, err = h.recordAcceptance(ctx, shipmentID, created, h.labelInHand(st, created)); err != nil {
			return err // the next attempt resumes from the booking's handle, where the adapter recorded one
		}
		if err := failpoint.Hit(failpoint.AfterCarrierAccepted); err != nil {
			return err
		}
		if !sh.AwaitsCarrier() {
			return nil // the label came with the answer and was recorded with it
		}
		labels = created.Labels
	}
	return h.fetchLabel(ctx, callCtx, shipper, settings, sh, labels)
}

// findBooking asks a carrier that can be asked whether an earlier attempt,
// which ended before it recorded the carrier's handle, booked the shipment
// after all; a booking found is recorded and resumed, not made again.
func (h BookShipmentHandler) findBooking(ctx context.Context, shipper carrier.Shipper, settings carrier.Settings, st domain.Stored, retried bool) (domain.Stored, error) {
	finder, ok := shipper.(carrier.BookingFinder)
	if !retried || !ok || st.BookingHandle != "" {
		return st, nil
	}
	req := request(st)
	req.Booking = carrier.Booking{Key: st.ID}
	handle, found, err := finder.FindBooking(ctx, settings, req)
	if err != nil || !found {
		return st, err
	}
	if err := h.bookingAccepted(st.ID)(ctx, handle); err != nil {
		return st, err
	}
	st.BookingHandle = handle
	return st, nil
}

// book asks the carrier to create the shipment, or to resume the booking an
// earlier attempt left with it (the handle the adapter recorded, ADR 0038).
func (h BookShipmentHandler) book(ctx context.Context, shipper carrier.Shipper, settings carrier.Settings, st domain.Stored) (carrier.CreatedShipment, error) {
	req := request(st)
	req.Booking = carrier.Booking{Key: st.ID, Handle: st.BookingHandle, Accepted: h.bookingAccepted(st.ID)}
	return shipper.CreateShipment(ctx, settings, req)
}

// bookingFailed records a booking the carrier refused, or reports one it did
// not answer; either way what a failed attempt left at the carrier
// (carrier.LeftAtCarrier) is logged and kept on the shipment.
func (h BookShipmentHandler) bookingFailed(ctx context.Context, sh *domain.Shipment, giveUp bool, err error) error {
	if left := carrier.LeftoverOf(err); left != nil {
		slog.WarnContext(ctx, "a failed booking left shipments at the carrier", "shipment_id", sh.ID(),
			"provider_ids", left.ProviderIDs, "err", left.CancelErr)
		if _, recErr := h.repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
			sh.NoteLeftAtCarrier(left.ProviderIDs, left.CancelErr.Error(), h.clock.Now())
			return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, h.clock.Now())}}, nil
		}); recErr != nil {
			slog.ErrorContext(ctx, "recording what a failed booking left at the carrier", "shipment_id", sh.ID(), "err", recErr)
		}
	}
	if problems, rejected := rejectionProblems(err); rejected {
		return h.reject(ctx, sh.ID(), problems)
	}
	return h.unavailable(ctx, sh, giveUp, err)
}

// recordAcceptance keeps the carrier's answer (its id, price and tracking
// numbers) in a short transaction of its own: from here on the carrier holds
// the shipment and no attempt books it again. When the answer brought every
// label and number and they merged (inHand), the label is recorded in the
// same transaction and the booking ends there: one commit, not two.
func (h BookShipmentHandler) recordAcceptance(ctx context.Context, id string, created carrier.CreatedShipment, inHand *domain.Label) (*domain.Shipment, error) {
	now := h.clock.Now()
	return h.repo.Update(ctx, id, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.AwaitsCarrier() || sh.HeldByCarrier() {
			return nil, nil
		}
		if err := sh.CarrierAccepted(created.ProviderShipmentID, created.TrackingNumbers, created.Price); err != nil {
			return nil, err
		}
		if inHand != nil && sh.TrackingNumbersComplete() {
			before := sh.Status()
			if err := sh.LabelReady(*inHand, now); err != nil {
				return nil, err
			}
			return labelEvents(sh, before, now), nil
		}
		sh.KeepLabelParts(domain.LabelParts{Format: sh.Stored().LabelFormat, Parts: labelData(created.Labels)})
		return nil, nil
	})
}

// labelInHand merges the labels of the carrier's answer when it brought
// one per parcel: work in memory, done before the acceptance is recorded
// so both commit together. nil when they are not all there or do not
// merge: the label step then takes them from the kept parts, as after any
// acceptance.
func (h BookShipmentHandler) labelInHand(st domain.Stored, created carrier.CreatedShipment) *domain.Label {
	if len(created.Labels) != len(st.Parcels) || len(created.TrackingNumbers) != len(st.Parcels) {
		return nil
	}
	data, err := h.labels.Merge(st.LabelFormat, labelData(created.Labels))
	if err != nil {
		return nil
	}
	return &domain.Label{Format: st.LabelFormat, MIMEType: h.labels.MIMEType(st.LabelFormat), Data: data}
}

func labelData(labels []carrier.Label) [][]byte {
	parts := make([][]byte, len(labels))
	for i, l := range labels {
		parts[i] = l.Data
	}
	return parts
}

// fetchLabel is the label step of a shipment the carrier holds: read back
// tracking numbers its answer lacked, fetch the labels (unless its answer
// had them), merge them, record. A failure is counted on the shipment and
// retried; the last gives up, the shipment created without a label.
func (h BookShipmentHandler) fetchLabel(ctx, callCtx context.Context, shipper carrier.Shipper, settings carrier.Settings, sh *domain.Shipment, labels []carrier.Label) error {
	label, err := h.label(callCtx, shipper, settings, sh, labels)
	return h.recordLabel(ctx, sh, label, err)
}

// errKeptPartsDoNotMerge marks a label step whose kept label parts did not
// merge: they are forgotten, and the next try asks the carrier.
var errKeptPartsDoNotMerge = errors.New("the labels of the carrier's answer do not merge")

// recordLabel records the label step's outcome: the label, or a failure
// counted (the last one giving up).
func (h BookShipmentHandler) recordLabel(ctx context.Context, sh *domain.Shipment, label domain.Label, err error) error {
	now := h.clock.Now()
	if err == nil {
		_, err = h.repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
			if !sh.AwaitsLabel() {
				return nil, nil
			}
			before := sh.Status()
			if err := sh.LabelReady(label, now); err != nil {
				return nil, err
			}
			return labelEvents(sh, before, now), nil
		})
		if err == nil {
			return nil
		}
		if !fault.Is(err, fault.KindUnavailable) {
			return err // the database: tried again, nothing counted
		}
	}
	if ctx.Err() != nil {
		return err // shutting down: not the label's fault
	}
	var gaveUp bool
	attempt := 0
	_, recErr := h.repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.AwaitsLabel() {
			return nil, nil
		}
		if errors.Is(err, errKeptPartsDoNotMerge) {
			sh.DropLabelParts()
		}
		if attempt = sh.LabelFailed(); attempt < maxLabelAttempts {
			return nil, nil // counted, no event: nothing a client sees changed
		}
		gaveUp = true
		before := sh.Status()
		if err := sh.LabelGaveUp(err.Error(), now); err != nil {
			return nil, err
		}
		return labelEvents(sh, before, now), nil
	})
	if recErr != nil {
		return recErr
	}
	if gaveUp {
		slog.WarnContext(ctx, "gave up on a label; the carrier holds the shipment", "shipment_id", sh.ID(),
			"provider_shipment_id", sh.Stored().ProviderShipmentID, "err", err)
		return nil
	}
	if attempt == 0 {
		return nil // the label is no longer due (cancelled, stored or given up meanwhile)
	}
	return &LabelNotReady{Attempt: attempt, Err: unavailable(err)}
}

// LabelNotReady is a failed label step, to be tried again after a pause of
// its own: Attempt counts the label step's failures, not the booking's.
type LabelNotReady struct {
	Attempt int
	Err     error // wraps ErrCarrierUnavailable
}

func (e *LabelNotReady) Error() string { return "label not ready: " + e.Err.Error() }

// Unwrap is the failure.
func (e *LabelNotReady) Unwrap() error { return e.Err }

// maxLabelAttempts is how often the label step is tried before the shipment
// is left created without a label.
const maxLabelAttempts = 10

// labelEvents are the events of a label step that ended: shipment.created
// (and status_changed) for a shipment that was pending, shipment.updated for
// one created before without a label.
func labelEvents(sh *domain.Shipment, before domain.Status, now time.Time) []domain.Event {
	if before != domain.StatusPending {
		return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}
	}
	events := []domain.Event{contract.ShipmentCreated{ShipmentEvent: shipmentEvent(sh, now)}}
	return withStatusChange(events, sh, before, now)
}

// label makes the shipment's merged label, asking the carrier again for
// the tracking numbers its answer lacked (by resuming the booking from its
// handle: never a second booking) and for the labels it did not send.
func (h BookShipmentHandler) label(ctx context.Context, shipper carrier.Shipper, settings carrier.Settings, sh *domain.Shipment, labels []carrier.Label) (domain.Label, error) {
	st := sh.Stored()
	if !sh.TrackingNumbersComplete() {
		if st.BookingHandle == "" {
			return domain.Label{}, errors.New("the carrier's answer lacked tracking numbers, and it left no booking to read them back from")
		}
		created, err := h.book(ctx, shipper, settings, st)
		if err != nil {
			return domain.Label{}, fmt.Errorf("reading the tracking numbers back: %w", err)
		}
		if sh, err = h.repo.Update(ctx, st.ID, func(sh *domain.Shipment) ([]domain.Event, error) {
			return nil, sh.TrackingNumbersRead(created.TrackingNumbers)
		}); err != nil {
			return domain.Label{}, err
		}
		st, labels = sh.Stored(), created.Labels
	}
	return h.mergedLabel(ctx, shipper, settings, st, labels)
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

// unavailable is a failed attempt the worker tries again: both
// ErrCarrierUnavailable, which the worker retries on, and a fault the use
// case reports as unavailable, not as an unexpected error.
func unavailable(cause error) error {
	return fmt.Errorf("%w: %w", ErrCarrierUnavailable, fault.Unavailable(cause.Error()))
}

// unavailable gives up on a booking the carrier never answered (the
// worker's last attempt), or has it tried again.
func (h BookShipmentHandler) unavailable(ctx context.Context, sh *domain.Shipment, giveUp bool, cause error) error {
	if giveUp {
		// Read again: this attempt may have recorded the carrier's handle.
		fresh, err := h.repo.Get(ctx, sh.ID())
		if fault.Is(err, fault.KindNotFound) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		sh = fresh
	}
	if giveUp && sh.AcceptedByCarrier() {
		// The carrier accepted the booking and has not finished it: it is
		// not "could not be reached", and giving up would leave the carrier's
		// shipment behind. It is tried again on the longest pause.
		slog.WarnContext(ctx, "a booking the carrier accepted has not finished after repeated attempts", "shipment_id", sh.ID(),
			"booking_handle", sh.Stored().BookingHandle, "err", cause)
	}
	if giveUp && !sh.AcceptedByCarrier() {
		return h.refuse(ctx, sh, giveUp, domain.Problem{Message: "the carrier could not be reached; gave up after repeated attempts (" + cause.Error() + ")"})
	}
	return unavailable(cause)
}

// refuse records a booking that cannot go on, unless the carrier holds the
// shipment already (a label step that finds the channel gone): that one is
// tried again, and its label step gives up in the end instead.
func (h BookShipmentHandler) refuse(ctx context.Context, sh *domain.Shipment, giveUp bool, problem domain.Problem) error {
	if sh.HeldByCarrier() {
		return h.fetchLabelFailed(ctx, sh, errors.New(problem.Message))
	}
	return h.reject(ctx, sh.ID(), []domain.Problem{problem})
}

// fetchLabelFailed counts a label step that could not even start.
func (h BookShipmentHandler) fetchLabelFailed(ctx context.Context, sh *domain.Shipment, cause error) error {
	return h.recordLabel(ctx, sh, domain.Label{}, cause)
}

func (h BookShipmentHandler) reject(ctx context.Context, id string, problems []domain.Problem) error {
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, id, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.AwaitsCarrier() || sh.HeldByCarrier() {
			return nil, nil
		}
		if err := sh.Rejected(problems, now); err != nil {
			return nil, err
		}
		return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}, nil
	})
	if fault.Is(err, fault.KindNotFound) {
		return nil
	}
	return err
}

// mergedLabel joins the carrier's per-parcel labels into one file: those
// in hand, else those kept from its answer, else fetched from it.
func (h BookShipmentHandler) mergedLabel(ctx context.Context, shipper carrier.Shipper, settings carrier.Settings, st domain.Stored, labels []carrier.Label) (domain.Label, error) {
	parts, kept := labelData(labels), false
	if len(parts) == 0 {
		stored, err := h.repo.LabelParts(ctx, st.ID)
		if err != nil {
			return domain.Label{}, err
		}
		parts, kept = stored.Parts, len(stored.Parts) > 0
	}
	if len(parts) == 0 {
		fetched, err := shipper.Labels(ctx, settings, carrier.ShipmentRef{
			ProviderShipmentID: st.ProviderShipmentID, TrackingNumbers: trackingNumbers(st)}, st.LabelFormat)
		if err != nil {
			return domain.Label{}, fmt.Errorf("fetching labels: %w", err)
		}
		parts = labelData(fetched)
	}
	data, err := h.labels.Merge(st.LabelFormat, parts)
	if err != nil && kept {
		return domain.Label{}, fmt.Errorf("%w: merging labels: %w", errKeptPartsDoNotMerge, err)
	}
	if err != nil {
		return domain.Label{}, fmt.Errorf("merging labels: %w", err)
	}
	return domain.Label{Format: st.LabelFormat, MIMEType: h.labels.MIMEType(st.LabelFormat), Data: data}, nil
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
