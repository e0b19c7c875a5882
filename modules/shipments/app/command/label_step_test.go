package command_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/failpoint"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// The tests of the label step (ADR 0041): once the carrier has accepted a
// booking, no failure after it books the shipment again.

// vendor is a carrier as the real adapters behave: it hands each booking's
// id to Booking.Accept before it answers, and resumes a booking given its
// handle instead of making another. bookings counts what it holds.
type vendor struct {
	bookings []string // booking keys, one per shipment the vendor holds
	// lacking drops the last tracking number from a fresh booking's answer.
	lacking bool
}

func (v *vendor) create(ctx context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if req.Booking.Handle != "" {
		return bookedAnswer(req, false), nil
	}
	v.bookings = append(v.bookings, req.Booking.Key)
	if err := req.Booking.Accept(ctx, fmt.Sprintf("V-%d", len(v.bookings))); err != nil {
		return carrier.CreatedShipment{}, err
	}
	out := bookedAnswer(req, false)
	if v.lacking {
		out.TrackingNumbers = out.TrackingNumbers[:len(out.TrackingNumbers)-1]
	}
	return out, nil
}

// labelsFailing makes the carrier's label service fail the first n times.
func labelsFailing(f *fixture, n int) *int {
	calls := 0
	f.carrier.onLabels = func(_ context.Context, ref carrier.ShipmentRef, format string) ([]carrier.Label, error) {
		if calls++; calls <= n {
			return nil, fmt.Errorf("%w: label service answered 503", carrier.ErrUnavailable)
		}
		out := make([]carrier.Label, len(ref.TrackingNumbers))
		for i, tn := range ref.TrackingNumbers {
			out[i] = carrier.Label{Format: format, Data: []byte("label " + tn)}
		}
		return out, nil
	}
	return &calls
}

// countCalls counts the carrier calls of one kind.
func countCalls(f *fixture, kind string) int {
	n := 0
	for _, c := range f.carrier.Calls() {
		if c == kind {
			n++
		}
	}
	return n
}

// Labels that fail are fetched again, attempt after attempt, and the
// carrier is asked to book once: the shipment is the carrier's from its
// first answer (its id and tracking numbers shown, still pending), and
// created with its label when the label service answers.
func TestAFailingLabelIsFetchedAgainNeverBookedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 2))
	f.carrier.onCreate = (&vendor{}).create
	labelsFailing(f, 3)
	for attempt := 1; attempt <= 3; attempt++ {
		err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"})
		var notReady *command.LabelNotReady
		if !errors.As(err, &notReady) || notReady.Attempt != attempt || !errors.Is(err, command.ErrCarrierUnavailable) {
			t.Fatalf("attempt %d answered %v, want the label step's attempt %d to be tried again", attempt, err, attempt)
		}
		st := f.state(t, "sh_1")
		if st.Status != domain.StatusPending || st.ProviderShipmentID != "P-ORDER-sh_1" || st.Parcels[1].TrackingNumber == nil ||
			st.IsSuccessful != nil || st.Version != 1 || st.HasLabel {
			t.Fatalf("after attempt %d: %+v, want it pending, the carrier's id and numbers kept, nothing a client is told changed", attempt, st)
		}
	}
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "sh_1")
	if st.Status != domain.StatusCreated || !st.HasLabel || st.Version != 2 || len(st.Errors) != 0 {
		t.Errorf("after the label came: %+v", st)
	}
	if got := f.events(t, 1); !slices.Equal(got, []string{"shipment.created v2 created", "shipment.status_changed v2 pending>created"}) {
		t.Errorf("events %v", got)
	}
	if n := countCalls(f, "create"); n != 1 {
		t.Errorf("the carrier was asked to book %d times", n)
	}
	if l, _ := f.repo.Label(t.Context(), "sh_1"); l == nil || string(l.Data) != "pdf:label TN1|label TN2" {
		t.Errorf("label %+v", l)
	}
}

// The labels of the carrier's answer are kept with its acceptance: a merge
// that failed merges them again without asking the carrier; kept labels
// that still do not merge are forgotten and fetched from the carrier; never
// booked again.
func TestLabelsThatDoNotMergeAreMergedAgainThenFetched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		failures  int
		wantCalls []string
	}{
		{"merged again from the kept labels", 1, []string{"create"}},
		{"fetched when the kept labels do not merge", 2, []string{"create", "labels"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, request("sh_1", 1))
			f.labels.fail(errors.New("not a pdf"))
			for range tc.failures {
				if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); !errors.Is(err, command.ErrCarrierUnavailable) {
					t.Fatalf("answered %v", err)
				}
			}
			f.labels.fail(nil)
			if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
				t.Fatal(err)
			}
			if calls := f.carrier.Calls(); !slices.Equal(calls, tc.wantCalls) {
				t.Errorf("carrier calls %v, want %v", calls, tc.wantCalls)
			}
			if st := f.state(t, "sh_1"); st.Status != domain.StatusCreated || !st.HasLabel {
				t.Errorf("%+v", st)
			}
			if parts, err := f.repo.LabelParts(t.Context(), "sh_1"); err != nil || len(parts.Parts) != 0 {
				t.Errorf("kept parts after the label: %+v (%v)", parts, err)
			}
		})
	}
}

// A label that cannot be had leaves the shipment the carrier's: created,
// without a label, its errors saying why; it cannot be deleted, may be
// cancelled, and its label asked for again.
func TestALabelThatCannotBeHadLeavesTheShipmentTheCarriers(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 1))
	f.carrier.onCreate = (&vendor{}).create
	calls := labelsFailing(f, 1000)
	var err error
	for range 20 {
		if err = f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1", GiveUp: true}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the label step never gave up: %v", err)
	}
	st := f.state(t, "sh_1")
	if st.Status != domain.StatusCreated || st.IsSuccessful == nil || !*st.IsSuccessful || st.HasLabel || st.ProviderShipmentID == "" ||
		len(st.Errors) != 1 || st.Errors[0].Field != domain.LabelField || !strings.Contains(st.Errors[0].Message, "label service answered 503") {
		t.Fatalf("after giving up: %+v", st)
	}
	if *calls != 10 || countCalls(f, "create") != 1 {
		t.Errorf("%d label fetches and %d bookings, want 10 and 1", *calls, countCalls(f, "create"))
	}
	if got := f.events(t, 1); !slices.Equal(got, []string{"shipment.created v2 created", "shipment.status_changed v2 pending>created"}) {
		t.Errorf("events %v", got)
	}
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil || *calls != 10 {
		t.Errorf("a given-up label was fetched again by itself (%v, %d fetches)", err, *calls)
	}
	err = f.delete.Handle(t.Context(), command.DeleteShipment{AccountID: account, ID: "sh_1"})
	if !fault.Is(err, fault.KindValidation) {
		t.Errorf("deleting a shipment the carrier holds answered %v", err)
	}

	retry := command.NewRetryLabelHandler(f.repo, f.clock, usecasetest.Observer())
	if err := retry.Handle(t.Context(), command.RetryLabel{AccountID: stranger, ID: "sh_1"}); !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's retry answered %v", err)
	}
	if err := retry.Handle(t.Context(), command.RetryLabel{AccountID: account, ID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	f.carrier.onLabels = nil // the label service is back
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	st = f.state(t, "sh_1")
	if st.Status != domain.StatusCreated || !st.HasLabel || len(st.Errors) != 0 || countCalls(f, "create") != 1 {
		t.Errorf("after the retried label: %+v", st)
	}
	if got := f.events(t, 3); !slices.Equal(got, []string{"shipment.updated v3 created", "shipment.updated v4 created"}) {
		t.Errorf("events of the retry %v", got)
	}
	if err := retry.Handle(t.Context(), command.RetryLabel{AccountID: account, ID: "sh_1"}); !fault.Is(err, fault.KindValidation) {
		t.Errorf("retrying a label that is there answered %v", err)
	}
}

// A shipment the carrier holds whose label is still being fetched can be
// cancelled; the label step then ends.
func TestAShipmentWhoseLabelIsBeingFetchedCanBeCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 1))
	f.carrier.onCreate = (&vendor{}).create
	labelsFailing(f, 1000)
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); !errors.Is(err, command.ErrCarrierUnavailable) {
		t.Fatal(err)
	}
	if err := f.cancel.Handle(t.Context(), command.CancelShipment{AccountID: account, ID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	sh, err := f.repo.Get(t.Context(), "sh_1")
	if err != nil {
		t.Fatal(err)
	}
	if sh.Status() != domain.StatusCancelled || sh.AwaitsCarrier() {
		t.Errorf("status %s, awaits the carrier %v", sh.Status(), sh.AwaitsCarrier())
	}
}

// Tracking numbers the carrier's answer lacked are read back by resuming
// its booking from the handle: one booking at the carrier.
func TestMissingTrackingNumbersAreReadBackNotBookedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 2))
	v := &vendor{lacking: true}
	f.carrier.onCreate = v.create
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "sh_1")
	if st.Status != domain.StatusCreated || !st.HasLabel || *st.Parcels[1].TrackingNumber != "TN2" || len(v.bookings) != 1 {
		t.Errorf("%+v after %d bookings at the carrier", st, len(v.bookings))
	}
	if handles := []string{f.carrier.requests[0].Booking.Handle, f.carrier.requests[1].Booking.Handle}; !slices.Equal(handles, []string{"", "V-1"}) {
		t.Errorf("handles %q", handles)
	}
}

// A carrier that left no handle cannot be asked again for numbers its
// answer lacked: the label step fails without booking again, and gives up
// with the shipment the carrier's.
func TestMissingTrackingNumbersWithoutAHandleAreNeverBookedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 2))
	f.carrier.onCreate = func(_ context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		out := bookedAnswer(req, true)
		out.TrackingNumbers = out.TrackingNumbers[:1]
		return out, nil
	}
	for range 10 {
		_ = f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}) // each attempt is judged by the state below
	}
	st := f.state(t, "sh_1")
	if countCalls(f, "create") != 1 || st.Status != domain.StatusCreated || st.HasLabel || st.ProviderShipmentID == "" ||
		len(st.Errors) != 1 || !strings.Contains(st.Errors[0].Message, "lacked tracking numbers") {
		t.Errorf("%d bookings; %+v", countCalls(f, "create"), st)
	}
}

// A booking that fails and leaves shipments at the carrier (a best-effort
// cancel that failed) says so on the shipment, not only in the log.
func TestWhatAFailedBookingLeftAtTheCarrierIsRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 2))
	f.carrier.onCreate = func(context.Context, carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		return carrier.CreatedShipment{}, carrier.WithLeftover(carrier.Reject("parcels.1.weight_amount", "too heavy"),
			[]string{"DHL-1"}, errors.New("DELETE answered 503"))
	}
	if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
		t.Fatal(err)
	}
	st := f.state(t, "sh_1")
	if st.IsSuccessful == nil || *st.IsSuccessful || len(st.Errors) != 2 {
		t.Fatalf("%+v", st)
	}
	var noted bool
	for _, p := range st.Errors {
		noted = noted || (strings.Contains(p.Message, "DHL-1") && strings.Contains(p.Message, "DELETE answered 503"))
	}
	if !noted {
		t.Errorf("errors %+v do not name what was left at the carrier", st.Errors)
	}
}

// The process dies right after the carrier answered, before shipd recorded
// the answer (failpoint): the next attempt resumes the booking from the
// handle the adapter recorded, and the carrier holds one shipment. Not
// parallel: the failpoint is the process's.
func TestAKillBetweenTheCarriersAnswerAndTheRecordBooksOnce(t *testing.T) {
	for _, point := range []string{failpoint.AfterCarrierAnswer, failpoint.AfterCarrierAccepted} {
		t.Run(point, func(t *testing.T) {
			f := newFixture()
			f.created(t, request("sh_1", 2))
			v := &vendor{}
			f.carrier.onCreate = v.create
			disarm := failpoint.Stop(point, 1)
			err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"})
			if hits := disarm(); hits != 1 || !errors.Is(err, failpoint.ErrStopped) {
				t.Fatalf("the failpoint hit %d times; the attempt answered %v", hits, err)
			}
			if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
				t.Fatal(err)
			}
			if st := f.state(t, "sh_1"); st.Status != domain.StatusCreated || !st.HasLabel || len(v.bookings) != 1 {
				t.Errorf("%+v after %d bookings at the carrier", st, len(v.bookings))
			}
		})
	}
}

// findingCarrier is the fake carrier that can be asked for a booking by its
// key (carrier.BookingFinder).
type findingCarrier struct {
	*fakeCarrier
	v *vendor
}

func (c findingCarrier) FindBooking(_ context.Context, _ carrier.Settings, req carrier.ShipmentRequest) (string, bool, error) {
	for i, key := range c.v.bookings {
		if key == req.Booking.Key {
			return fmt.Sprintf("V-%d", i+1), true, nil
		}
	}
	return "", false, nil
}

// An attempt that ends after the carrier booked but before its handle was
// recorded (the process died in between): a retried attempt asks a carrier
// that can be asked, finds the booking and resumes it; one that cannot be
// asked books again, the window ADR 0041 leaves to such carriers.
func TestARetryAsksTheCarrierForABookingItsHandleNeverRecorded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		findable bool
		bookings int
	}{{"a carrier that can be asked", true, 1}, {"a carrier that cannot", false, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, request("sh_1", 2))
			v := &vendor{}
			f.carrier.onCreate = func(ctx context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
				if len(v.bookings) == 0 {
					v.bookings = append(v.bookings, req.Booking.Key) // booked; the process dies before Accept
					return carrier.CreatedShipment{}, fmt.Errorf("%w: the attempt ended", carrier.ErrUnavailable)
				}
				return v.create(ctx, req)
			}
			var provider carrier.Provider = f.carrier
			if tc.findable {
				provider = findingCarrier{f.carrier, v}
			}
			book := command.NewBookShipmentHandler(f.repo, f.channels, carrier.NewRegistry(provider), f.labels, f.clock, carrierTimeout, usecasetest.Observer())
			if err := book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); !errors.Is(err, command.ErrCarrierUnavailable) {
				t.Fatalf("the first attempt answered %v", err)
			}
			if err := book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1", Retried: true}); err != nil {
				t.Fatal(err)
			}
			if st := f.state(t, "sh_1"); st.Status != domain.StatusCreated || !st.HasLabel || len(v.bookings) != tc.bookings {
				t.Errorf("%+v after %d bookings at the carrier, want %d", st, len(v.bookings), tc.bookings)
			}
		})
	}
}

// A booking the carrier accepted (its handle recorded) but has not
// finished is not given up as "could not be reached", nor deletable: it is
// the carrier's, and tried again.
func TestAnAcceptedBookingIsNeverGivenUp(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, request("sh_1", 1))
	f.carrier.onCreate = func(ctx context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
		if req.Booking.Handle == "" {
			if err := req.Booking.Accept(ctx, "BATCH-1"); err != nil {
				return carrier.CreatedShipment{}, err
			}
		}
		return carrier.CreatedShipment{}, fmt.Errorf("%w: the batch is still being processed", carrier.ErrUnavailable)
	}
	err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1", GiveUp: true, Retried: true})
	if !errors.Is(err, command.ErrCarrierUnavailable) {
		t.Fatalf("the last attempt answered %v, want it tried again", err)
	}
	if st := f.state(t, "sh_1"); st.IsSuccessful != nil || st.BookingHandle != "BATCH-1" {
		t.Errorf("%+v", st)
	}
	if err := f.delete.Handle(t.Context(), command.DeleteShipment{AccountID: account, ID: "sh_1"}); !fault.Is(err, fault.KindValidation) {
		t.Errorf("deleting a booking the carrier accepted answered %v", err)
	}
}
