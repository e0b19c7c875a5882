package domain

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// A booking runs in two steps, each recorded as soon as it is done (ADR
// 0041): the carrier accepts the shipment (CarrierAccepted: its id and the
// parcels' tracking numbers, kept before anything else can fail), then its
// label is fetched and merged (LabelReady). The second step is retried on
// its own and never books again; when it gives up (LabelGivenUp) the
// shipment is still the carrier's: created, without a label, cancellable.
//
//	pending, nothing at the carrier       AwaitsCarrier, !HeldByCarrier
//	pending, held, label being fetched    AwaitsCarrier, HeldByCarrier
//	created with its label                LabelReady
//	created without a label               LabelGaveUp (RetryLabel: due again)
//	pending, is_successful false          Rejected

// LabelField is the field a label's problems name.
const LabelField = "label"

// AwaitsCarrier reports whether the booking worker has work on the
// shipment: the carrier has yet to answer, or it holds the shipment and its
// label is still to be fetched (or fetched again, RetryLabel).
func (sh *Shipment) AwaitsCarrier() bool {
	if sh.s.Status == StatusPending && sh.s.IsSuccessful == nil {
		return true
	}
	return sh.AwaitsLabel()
}

// HeldByCarrier reports whether the carrier has accepted the shipment: it
// named its id, so a retried booking must never book again.
func (sh *Shipment) HeldByCarrier() bool { return sh.s.ProviderShipmentID != "" }

// AcceptedByCarrier reports whether the carrier accepted the booking: it
// holds the shipment, or an accepted booking (a recorded handle) has yet to
// finish. Such a booking is never given up as "could not be reached".
func (sh *Shipment) AcceptedByCarrier() bool { return sh.HeldByCarrier() || sh.s.BookingHandle != "" }

// AwaitsLabel reports whether the carrier holds the shipment and its label
// is still to be fetched and merged.
func (sh *Shipment) AwaitsLabel() bool {
	if !sh.HeldByCarrier() || sh.s.HasLabel || sh.s.LabelGivenUp {
		return false
	}
	return sh.s.Status == StatusPending || sh.s.Status == StatusCreated
}

// TrackingNumbersComplete reports whether every parcel has its tracking
// number.
func (sh *Shipment) TrackingNumbersComplete() bool {
	for _, p := range sh.s.Parcels {
		if p.TrackingNumber == nil || *p.TrackingNumber == "" {
			return false
		}
	}
	return true
}

// CarrierAccepted records what the carrier answered when it accepted the
// booking: its shipment id, the price it named (nil for none) and the
// parcels' tracking numbers. Numbers that do not make one per parcel are
// not kept (TrackingNumbersComplete stays false): the label step reads
// them back from the carrier. The shipment stays pending until its label
// is ready, and nothing a client is told of changes: no version, no event
// (the record shows the carrier's id and numbers at once, and the label
// step's end publishes them), so a booking whose label comes at once reads
// as it always has.
func (sh *Shipment) CarrierAccepted(providerShipmentID string, trackingNumbers []string, price *carrier.Money) error {
	if err := sh.checkAcceptance(providerShipmentID); err != nil {
		return err
	}
	sh.accept(providerShipmentID, trackingNumbers, price)
	return nil
}

// checkAcceptance refuses an acceptance the shipment cannot take: the
// carrier answered for it already, or named no shipment.
func (sh *Shipment) checkAcceptance(providerShipmentID string) error {
	if sh.s.Status != StatusPending || sh.s.IsSuccessful != nil || sh.HeldByCarrier() {
		return fault.Conflict("shipment_decided", "the carrier has already answered for this shipment")
	}
	if providerShipmentID == "" {
		return fault.Unavailable("the carrier accepted the booking without naming the shipment")
	}
	return nil
}

func (sh *Shipment) accept(providerShipmentID string, trackingNumbers []string, price *carrier.Money) {
	sh.s.ProviderShipmentID = providerShipmentID
	sh.s.TotalPriceMinor, sh.s.Currency = nil, ""
	if price != nil && price.Currency != "" {
		minor := price.Minor
		sh.s.TotalPriceMinor, sh.s.Currency = &minor, price.Currency
	}
	sh.setTrackingNumbers(trackingNumbers)
}

// TrackingNumbersRead records the parcels' tracking numbers the carrier
// was asked for again, when its first answer lacked some; like
// CarrierAccepted, with no version.
func (sh *Shipment) TrackingNumbersRead(trackingNumbers []string) error {
	if !sh.AwaitsLabel() {
		return fault.Conflict("label_not_due", "the shipment's label is not being fetched")
	}
	if !sh.setTrackingNumbers(trackingNumbers) {
		return fault.Unavailable(trackingCountProblem(len(trackingNumbers), len(sh.s.Parcels)))
	}
	return nil
}

func (sh *Shipment) setTrackingNumbers(numbers []string) bool {
	if len(numbers) != len(sh.s.Parcels) || slices.Contains(numbers, "") {
		return false
	}
	for i := range sh.s.Parcels {
		tn := numbers[i]
		sh.s.Parcels[i].TrackingNumber = &tn
	}
	return true
}

func trackingCountProblem(got, parcels int) string {
	return "the carrier returned " + strconv.Itoa(got) + " tracking numbers for " + strconv.Itoa(parcels) + " parcels"
}

// LabelReady records the merged label of a shipment the carrier holds: a
// pending one becomes created; one created without a label (LabelGaveUp,
// then RetryLabel) gets it and loses the label's problem.
func (sh *Shipment) LabelReady(label Label, now time.Time) error {
	if !sh.AwaitsLabel() {
		return fault.Conflict("label_not_due", "the shipment's label is not being fetched")
	}
	if !sh.TrackingNumbersComplete() {
		return fault.Unavailable("a parcel has no tracking number yet")
	}
	sh.labelReady(label)
	sh.touch(now)
	return nil
}

func (sh *Shipment) labelReady(label Label) {
	sh.DropLabelParts() // merged: no longer needed
	sh.created()
	sh.s.HasLabel = true
	sh.s.LabelAttempts = 0
	sh.s.Errors = slices.DeleteFunc(sh.s.Errors, func(p Problem) bool { return p.Field == LabelField })
	sh.newLabel = &label
}

// LabelFailed counts a failed try to fetch or merge the label and reports
// how many there have been; internal, with no version.
func (sh *Shipment) LabelFailed() int {
	sh.s.LabelAttempts++
	return sh.s.LabelAttempts
}

// LabelGaveUp records that the label could not be had: the carrier holds
// the shipment, so it is created, without a label, its errors saying why;
// it may be cancelled, or its label asked for again (RetryLabel).
func (sh *Shipment) LabelGaveUp(reason string, now time.Time) error {
	if !sh.AwaitsLabel() {
		return fault.Conflict("label_not_due", "the shipment's label is not being fetched")
	}
	sh.created()
	sh.s.LabelGivenUp = true
	sh.s.Errors = append(slices.DeleteFunc(sh.s.Errors, func(p Problem) bool { return p.Field == LabelField }),
		Problem{Field: LabelField, Message: "the carrier holds this shipment, but its label could not be fetched: " + reason +
			"; POST /v1/shipments/" + sh.s.ID + "/label/retry tries again, or cancel the shipment"})
	sh.touch(now)
	return nil
}

// RetryLabel makes the label of a shipment whose label step gave up due
// again, with a fresh count of attempts; its errors no longer name the
// label until the step gives up again.
func (sh *Shipment) RetryLabel(now time.Time) error {
	if !sh.HeldByCarrier() || sh.s.HasLabel {
		return fault.Field("status", "only a shipment the carrier holds without a label can have its label fetched again")
	}
	if !sh.s.LabelGivenUp {
		if sh.AwaitsLabel() {
			return nil // already being fetched
		}
		return fault.Field("status", "the label of a "+string(sh.s.Status)+" shipment cannot be fetched again")
	}
	sh.s.LabelGivenUp = false
	sh.s.LabelAttempts = 0
	sh.s.Errors = slices.DeleteFunc(sh.s.Errors, func(p Problem) bool { return p.Field == LabelField })
	sh.touch(now)
	return nil
}

// created marks the shipment the carrier's, successful, once its label
// step has ended (either way); a pending one becomes created and asks for
// its parcels' tracking (RequestTracking), sent with the change.
func (sh *Shipment) created() {
	ok := true
	sh.s.IsSuccessful = &ok
	if sh.s.Status == StatusPending {
		sh.s.Status = StatusCreated
		sh.RequestTracking()
	}
}

// Booked records a booking whose label came with the carrier's answer, both
// steps at once (CarrierAccepted, then LabelReady).
func (sh *Shipment) Booked(providerShipmentID string, trackingNumbers []string, price *carrier.Money, label Label, now time.Time) error {
	if err := sh.checkAcceptance(providerShipmentID); err != nil {
		return err
	}
	if len(trackingNumbers) != len(sh.s.Parcels) || slices.Contains(trackingNumbers, "") {
		return fault.Unavailable(trackingCountProblem(len(trackingNumbers), len(sh.s.Parcels)))
	}
	sh.accept(providerShipmentID, trackingNumbers, price)
	sh.labelReady(label)
	sh.touch(now)
	return nil
}

// BookingAccepted records the handle of a booking the carrier accepted and
// has yet to finish, so a retried booking resumes it instead of booking
// again (ADR 0038). Nothing a client sees changes: no version, no event.
func (sh *Shipment) BookingAccepted(handle string) error {
	if sh.s.Status != StatusPending || sh.s.IsSuccessful != nil || sh.HeldByCarrier() {
		return fault.Conflict("shipment_decided", "the carrier has already answered for this shipment")
	}
	sh.s.BookingHandle = handle
	return nil
}

// Rejected records the carrier's refusal; the shipment stays pending, not
// successful, and may be deleted. A shipment the carrier holds is never
// refused: it stays the carrier's.
func (sh *Shipment) Rejected(problems []Problem, now time.Time) error {
	if sh.HeldByCarrier() {
		return fault.Conflict("shipment_held", "the carrier holds this shipment; it cannot be refused")
	}
	no := false
	sh.s.IsSuccessful = &no
	// What earlier attempts left at the carrier stays said.
	left := slices.DeleteFunc(slices.Clone(sh.s.Errors), func(p Problem) bool { return !strings.HasPrefix(p.Message, leftoverNote) })
	sh.s.Errors = append(slices.Clone(problems), left...)
	sh.touch(now)
	return nil
}

// NoteLeftAtCarrier records on the shipment what a failed booking left at
// the carrier (shipments a best-effort cancel could not remove), so the
// record says it, not only the operator's log. It changes no status.
const leftoverNote = "a failed booking attempt left shipments at the carrier that shipd could not cancel: "

func (sh *Shipment) NoteLeftAtCarrier(providerIDs []string, cause string, now time.Time) {
	sh.s.Errors = append(sh.s.Errors, Problem{Message: leftoverNote + strings.Join(providerIDs, ", ") + " (" + cause + "); cancel them with the carrier"})
	sh.touch(now)
}

// LabelParts are the per-parcel labels a carrier's booking answer brought,
// in parcel order, kept with the acceptance until the merged label is
// stored: a label step that failed after the answer merges them again
// rather than ask a carrier that may print a label only at booking (DHL
// Express).
type LabelParts struct {
	Format string
	Parts  [][]byte
}

// KeepLabelParts keeps the answer's labels with a shipment the carrier
// holds whose label is still to come.
func (sh *Shipment) KeepLabelParts(p LabelParts) {
	if sh.AwaitsLabel() && len(p.Parts) > 0 {
		sh.partsChange = &p
	}
}

// DropLabelParts forgets kept labels that did not merge: the next try asks
// the carrier for them.
func (sh *Shipment) DropLabelParts() { sh.partsChange = &LabelParts{} }

// TakeLabelPartsChange returns, once, what the repository is to keep of
// the answer's labels: nil for no change, no parts to forget them.
func (sh *Shipment) TakeLabelPartsChange() *LabelParts {
	p := sh.partsChange
	sh.partsChange = nil
	return p
}
