// Package repositorytest is the contract of the shipments module's
// domain.Repository as one suite, run against the PostgreSQL repository (on
// a real database) and against the in-memory one the app-layer tests use,
// so a fake that drifts from the real repository fails here, not in
// production (ADR 0037).
package repositorytest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"

	tracking "shipd/modules/tracking/contract"
)

// Subject is a repository under test and what it wrote to the outbox.
type Subject struct {
	Repo domain.Repository
	// Published returns every event the repository published so far, in
	// order; Sent every command it sent to other modules.
	Published, Sent func(t *testing.T) []outboxtest.Message
}

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// Shipment is a pending shipment of acc_1 with two parcels, as the create
// use case makes it; tracking as asked.
func Shipment(t testing.TB, enableTracking bool) *domain.Shipment {
	t.Helper()
	sender := &domain.Contact{FirstName: "Petr", LastName: "Malý", EmailAddress: "p@example.com", PhoneNumber: "+420111222333"}
	recipient := &domain.Contact{CompanyName: "Acme s.r.o.", FirstName: "Jana", LastName: "Nová", EmailAddress: "j@example.com", PhoneNumber: "+420123456789"}
	address := &domain.Address{StreetName: "Main", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"}
	parcel := domain.Parcel{LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, WeightAmount: 1}
	req := domain.Request{ChannelID: ids.New(ids.ShippingChannel), Sender: sender, Recipient: recipient, Origin: address, Destination: address,
		Parcels: []domain.Parcel{parcel, parcel}, EnableTracking: &enableTracking}
	info := carrier.ProviderInfo{Code: "fake", LabelFormats: []string{"pdf"}, MaxParcels: 2}
	sh, err := domain.New(ids.New(ids.Shipment), "acc_1", req, info, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

func event(sh *domain.Shipment) contract.ShipmentEvent {
	s := sh.Stored()
	return contract.ShipmentEvent{AccountID: s.AccountID, Version: s.Version, OccurredAt: t0,
		Shipment: contract.ShipmentSnapshot{ID: s.ID, Status: string(s.Status), ShippingChannelID: s.ChannelID}}
}

func add(t *testing.T, s Subject, enableTracking bool) *domain.Shipment {
	t.Helper()
	sh := Shipment(t, enableTracking)
	if err := s.Repo.Add(t.Context(), sh, contract.ShipmentRequested{ShipmentEvent: event(sh)}); err != nil {
		t.Fatal(err)
	}
	return sh
}

func get(t *testing.T, s Subject, id string) domain.Stored {
	t.Helper()
	sh, err := s.Repo.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return sh.Stored()
}

var label = domain.Label{Format: "pdf", MIMEType: "application/pdf", Data: []byte("%PDF-1.4 label")}

// book records the carrier's acceptance as the booking use case does.
func book(sh *domain.Shipment) ([]domain.Event, error) {
	if err := sh.Booked("PROV-1", []string{"TN1", "TN2"}, nil, label, t0.Add(time.Minute)); err != nil {
		return nil, err
	}
	sh.RequestTracking()
	return []domain.Event{contract.ShipmentCreated{ShipmentEvent: event(sh)}}, nil
}

// Run holds the repository newSubject makes (an empty one for each test)
// to the contract of domain.Repository.
func Run(t *testing.T, newSubject func(t *testing.T) Subject) {
	contracttest.Run(t, newSubject, []contracttest.Case[Subject]{
		{Name: "AddedIsReadBackAsStored", Test: addedIsReadBackAsStored},
		{Name: "MissingIsNotFound", Test: missingIsNotFound},
		{Name: "ATakenIdIsAnErrorNoFault", Test: aTakenIdIsAnErrorNoFault},
		{Name: "ABookingIsSavedWithItsLabelEventsAndTracking", Test: aBookingIsSavedWithItsLabelEventsAndTracking},
		{Name: "NoTrackingIsSentUnlessAsked", Test: noTrackingIsSentUnlessAsked},
		{Name: "AChangeWithoutAnEventIsSavedNoChangeIsNot", Test: aChangeWithoutAnEventIsSavedNoChangeIsNot},
		{Name: "AFailedUpdateSavesNothing", Test: aFailedUpdateSavesNothing},
		{Name: "DeleteRemovesAndVetoKeeps", Test: deleteRemovesAndVetoKeeps},
		{Name: "ConcurrentUpdatesAreSerial", Test: concurrentUpdatesAreSerial},
		{Name: "LabelPartsAreKeptUntilTheLabel", Test: labelPartsAreKeptUntilTheLabel},
		{Name: "UpdateAllAppliesInTurnAndSkipsTheGone", Test: updateAllAppliesInTurnAndSkipsTheGone},
		{Name: "UpdateAllRefusesALabelAndSavesNothing", Test: updateAllRefusesALabelAndSavesNothing},
		{Name: "ConcurrentUpdateAllsAreSerial", Test: concurrentUpdateAllsAreSerial},
	})
}

// What Add stored is what Get reads; the event is published with it; no
// label yet.
func addedIsReadBackAsStored(t *testing.T, s Subject) {
	sh := add(t, s, true)
	if got := get(t, s, sh.ID()); !reflect.DeepEqual(got, sh.Stored()) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, sh.Stored())
	}
	if l, err := s.Repo.Label(t.Context(), sh.ID()); err != nil || l != nil {
		t.Errorf("label of a pending shipment: %v (%v)", l, err)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested)
	outboxtest.WantNames(t, "sent", s.Sent(t))
}

// A shipment that is not there is fault.NotFound to Get, Update and Delete,
// fn is not called, and it has no label.
func missingIsNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	called := false
	fn := func(*domain.Shipment) ([]domain.Event, error) { called = true; return nil, nil }
	missing := ids.New(ids.Shipment)
	errs := map[string]error{
		"Get":    func() error { _, err := s.Repo.Get(ctx, missing); return err }(),
		"Update": func() error { _, err := s.Repo.Update(ctx, missing, fn); return err }(),
		"Delete": s.Repo.Delete(ctx, missing, fn),
	}
	contracttest.WantNotFound(t, "a missing shipment", errs, called)
	if l, err := s.Repo.Label(ctx, missing); err != nil || l != nil {
		t.Errorf("label of a missing shipment: %v (%v)", l, err)
	}
}

// A taken id is the primary key's violation: an error, not a fault.
func aTakenIdIsAnErrorNoFault(t *testing.T, s Subject) {
	sh := add(t, s, true)
	if err := s.Repo.Add(t.Context(), sh, contract.ShipmentRequested{ShipmentEvent: event(sh)}); err == nil {
		t.Error("a taken id was added again")
	} else if _, isFault := fault.As(err); isFault {
		t.Errorf("a taken id: %v, want an error that is no fault", err)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested)
}

// A booking is saved with its label and events, and with it goes the one
// tracking request the shipment asked for: its parcels' numbers, its
// recipient named as the domain names a contact.
func aBookingIsSavedWithItsLabelEventsAndTracking(t *testing.T, s Subject) {
	ctx := t.Context()
	sh := add(t, s, true)
	out, err := s.Repo.Update(ctx, sh.ID(), book)
	if err != nil {
		t.Fatal(err)
	}
	got := get(t, s, sh.ID())
	if !reflect.DeepEqual(got, out.Stored()) || got.Status != domain.StatusCreated || got.Version != 2 {
		t.Errorf("read back\n%+v\nUpdate returned\n%+v", got, out.Stored())
	}
	if l, err := s.Repo.Label(ctx, sh.ID()); err != nil || l == nil || !reflect.DeepEqual(*l, label) {
		t.Errorf("label %+v (%v), want %+v", l, err, label)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested, contract.EventCreated)
	sent := s.Sent(t)
	want := tracking.TrackShipmentParcels{AccountID: "acc_1", ShipmentID: sh.ID(), ChannelID: got.ChannelID, Provider: "fake",
		TrackingNumbers: []string{"TN1", "TN2"}, Recipient: tracking.Recipient{Name: "Jana Nová", Email: "j@example.com", Phone: "+420123456789"}}
	if len(sent) != 1 || sent[0].Name != want.CommandName() || !outboxtest.SameJSON(t, sent[0].Payload, want) {
		t.Errorf("sent %s, want one %+v", sent, want)
	}
}

// A shipment created without tracking asks for none.
func noTrackingIsSentUnlessAsked(t *testing.T, s Subject) {
	sh := add(t, s, false)
	if _, err := s.Repo.Update(t.Context(), sh.ID(), book); err != nil {
		t.Fatal(err)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested, contract.EventCreated)
	outboxtest.WantNames(t, "sent", s.Sent(t))
}

// A change that names no event is saved when it changed what is stored (a
// booking's handle, which a client does not see); one that changed nothing
// is not.
func aChangeWithoutAnEventIsSavedNoChangeIsNot(t *testing.T, s Subject) {
	ctx := t.Context()
	sh := add(t, s, true)
	if _, err := s.Repo.Update(ctx, sh.ID(), func(*domain.Shipment) ([]domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, sh.ID()); !reflect.DeepEqual(got, sh.Stored()) {
		t.Errorf("an update that changed nothing changed %+v", got)
	}
	if _, err := s.Repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) { return nil, sh.BookingAccepted("BATCH-7") }); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, sh.ID()); got.BookingHandle != "BATCH-7" || got.Version != 1 {
		t.Errorf("after recording the handle: %+v", got)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested)
}

// When fn fails, its error is Update's and nothing is saved, published or
// sent, whatever fn changed or asked.
func aFailedUpdateSavesNothing(t *testing.T, s Subject) {
	sh := add(t, s, true)
	refuse := errors.New("refused")
	if _, err := s.Repo.Update(t.Context(), sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		events, _ := book(sh)
		return events, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v, want fn's", err)
	}
	if got := get(t, s, sh.ID()); !reflect.DeepEqual(got, sh.Stored()) {
		t.Errorf("a failed update was saved: %+v", got)
	}
	if l, err := s.Repo.Label(t.Context(), sh.ID()); err != nil || l != nil {
		t.Errorf("a failed update kept its label: %v (%v)", l, err)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested)
	outboxtest.WantNames(t, "sent", s.Sent(t))
}

// Delete lets fn veto (nothing changes) or removes the shipment and its
// label, publishing fn's events.
func deleteRemovesAndVetoKeeps(t *testing.T, s Subject) {
	ctx := t.Context()
	sh := add(t, s, false)
	if _, err := s.Repo.Update(ctx, sh.ID(), book); err != nil {
		t.Fatal(err)
	}
	veto := errors.New("veto")
	if err := s.Repo.Delete(ctx, sh.ID(), func(*domain.Shipment) ([]domain.Event, error) { return nil, veto }); !errors.Is(err, veto) {
		t.Errorf("vetoed delete: %v", err)
	}
	get(t, s, sh.ID())
	if err := s.Repo.Delete(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		sh.Touch(t0.Add(time.Hour))
		return []domain.Event{contract.ShipmentDeleted{ShipmentEvent: event(sh)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Repo.Get(ctx, sh.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a deleted shipment: %v", err)
	}
	if l, err := s.Repo.Label(ctx, sh.ID()); err != nil || l != nil {
		t.Errorf("a deleted shipment's label: %v (%v)", l, err)
	}
	outboxtest.WantNames(t, "published", s.Published(t), contract.EventRequested, contract.EventCreated, contract.EventDeleted)
}

// Updates of one shipment at the same time are applied one after the
// other: none is lost.
func concurrentUpdatesAreSerial(t *testing.T, s Subject) {
	sh := add(t, s, true)
	const n = 8
	contracttest.Concurrently(t, n, func(ctx context.Context) error {
		_, err := s.Repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
			sh.Touch(t0)
			return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: event(sh)}}, nil
		})
		return err
	})
	if got := get(t, s, sh.ID()); got.Version != 1+n {
		t.Errorf("version %d after %d updates: some were lost", got.Version, n)
	}
}

// The labels of a carrier's answer kept with its acceptance are read back in
// parcel order, with nothing else changed; dropping them forgets them; the
// stored label forgets them too (ADR 0041).
func labelPartsAreKeptUntilTheLabel(t *testing.T, s Subject) {
	ctx := t.Context()
	sh := add(t, s, false)
	kept := domain.LabelParts{Format: "pdf", Parts: [][]byte{[]byte("part 1"), []byte("part 2")}}
	accept := func(sh *domain.Shipment) ([]domain.Event, error) {
		if err := sh.CarrierAccepted("P-1", []string{"TN1", "TN2"}, nil); err != nil {
			return nil, err
		}
		sh.KeepLabelParts(kept)
		return nil, nil
	}
	if _, err := s.Repo.Update(ctx, sh.ID(), accept); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Repo.LabelParts(ctx, sh.ID()); err != nil || !reflect.DeepEqual(got, kept) {
		t.Fatalf("kept parts %+v (%v), want %+v", got, err, kept)
	}
	if _, err := s.Repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		sh.DropLabelParts()
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Repo.LabelParts(ctx, sh.ID()); err != nil || len(got.Parts) != 0 {
		t.Errorf("dropped parts read back as %+v (%v)", got, err)
	}
	if _, err := s.Repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		sh.KeepLabelParts(kept)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Repo.Update(ctx, sh.ID(), func(sh *domain.Shipment) ([]domain.Event, error) {
		return nil, sh.LabelReady(label, time.Now())
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Repo.LabelParts(ctx, sh.ID()); err != nil || len(got.Parts) != 0 {
		t.Errorf("parts after the label was stored: %+v (%v)", got, err)
	}
	if l, err := s.Repo.Label(ctx, sh.ID()); err != nil || l == nil {
		t.Errorf("label %v (%v)", l, err)
	}
}
