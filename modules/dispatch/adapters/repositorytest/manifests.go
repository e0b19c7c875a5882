package repositorytest

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/contracttest"
	"shipd/platform/fault"
	"shipd/platform/ids"
	"shipd/platform/messaging/outboxtest"
)

var manifestCases = []contracttest.Case[Subject]{
	{Name: "ManifestAddedIsReadBackAsStored", Test: manifestAddedIsReadBackAsStored},
	{Name: "ManifestMissingIsNotFound", Test: manifestMissingIsNotFound},
	{Name: "ManifestTakenIdIsAnErrorNoFault", Test: manifestTakenIdIsAnErrorNoFault},
	{Name: "AShipmentIsOnOneManifest", Test: aShipmentIsOnOneManifest},
	{Name: "CompleteSavesTheManifestWithItsDocument", Test: completeSavesTheManifestWithItsDocument},
	{Name: "AFailedCompleteSavesNothing", Test: aFailedCompleteSavesNothing},
	{Name: "ForgetRemovesACreationOnly", Test: forgetRemovesACreationOnly},
	{Name: "StaleManifestsAreCreationsSinceBefore", Test: staleManifestsAreCreationsSinceBefore},
}

// What Add stored is what Get reads, every field; Add publishes nothing
// and the manifest has no document yet.
func manifestAddedIsReadBackAsStored(t *testing.T, s Subject) {
	ch := ids.New(ids.ShippingChannel)
	m := newManifest(t, ids.New(ids.Manifest), ch, t0, Shipment(account, ch, t0), Shipment(account, ch, t0.Add(time.Second)))
	want := m.Stored()
	if err := s.Manifests.Add(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if got := getManifest(t, s, want.ID); !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	if _, err := s.Manifests.Document(t.Context(), want.ID); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("the document of a manifest being created: %v", err)
	}
	wantNames(t, s)
}

// A manifest that is not there is fault.NotFound to Get, Complete and
// Document, and fn is never called; Forget has nothing to do.
func manifestMissingIsNotFound(t *testing.T, s Subject) {
	ctx := t.Context()
	called := false
	missing := ids.New(ids.Manifest)
	errs := map[string]error{
		"Get": func() error { _, err := s.Manifests.Get(ctx, missing); return err }(),
		"Complete": func() error {
			_, err := s.Manifests.Complete(ctx, missing, []byte("%PDF"), func(*manifest.Manifest) ([]domain.Event, error) {
				called = true
				return nil, nil
			})
			return err
		}(),
		"Document": func() error { _, err := s.Manifests.Document(ctx, missing); return err }(),
	}
	contracttest.WantNotFound(t, "a missing manifest", errs, called)
	if err := s.Manifests.Forget(ctx, missing); err != nil {
		t.Errorf("forgetting a missing manifest: %v", err)
	}
	wantNames(t, s)
}

// An id that is taken is the primary key's violation: an error, not a
// fault; the first manifest stays as it was, and the refused one holds no
// shipment.
func manifestTakenIdIsAnErrorNoFault(t *testing.T, s Subject) {
	ch := ids.New(ids.ShippingChannel)
	m := addManifest(t, s, ch, Shipment(account, ch, t0))
	other := Shipment(account, ch, t0)
	err := s.Manifests.Add(t.Context(), newManifest(t, m.ID(), ch, t0.Add(time.Hour), other))
	if _, isFault := fault.As(err); err == nil || isFault {
		t.Errorf("a taken id: %v, want an error that is no fault", err)
	}
	if got := getManifest(t, s, m.ID()); !reflect.DeepEqual(got, m.Stored()) {
		t.Errorf("the first manifest became %+v", got)
	}
	addManifest(t, s, ch, other)
}

// A shipment on a manifest, being created or created, is refused to
// another, on its index; the refused manifest holds nothing.
func aShipmentIsOnOneManifest(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	a, b, c := Shipment(account, ch, t0), Shipment(account, ch, t0), Shipment(account, ch, t0)
	first := addManifest(t, s, ch, a, b)
	refused := newManifest(t, ids.New(ids.Manifest), ch, t0, c, b)
	onFields(t, s.Manifests.Add(ctx, refused), map[string]string{"shipment_ids.1": "is on a manifest already"})
	if _, err := s.Manifests.Get(ctx, refused.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a refused manifest was stored (%v)", err)
	}
	complete(t, s, first.ID(), []byte("%PDF-1.4 first"))
	onFields(t, s.Manifests.Add(ctx, newManifest(t, ids.New(ids.Manifest), ch, t0, a)),
		map[string]string{"shipment_ids.0": "is on a manifest already"})
	addManifest(t, s, ch, c) // the refused manifest held none
}

// Complete hands fn the stored manifest, saves what it changed with the
// document and the events it names, and returns the saved manifest.
func completeSavesTheManifestWithItsDocument(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	m := addManifest(t, s, ch, Shipment(account, ch, t0))
	var seen manifest.Stored
	at := t0.Add(time.Minute)
	document := []byte("%PDF-1.4 the carrier's protocol \x00\xff")
	out, err := s.Manifests.Complete(ctx, m.ID(), document, func(n *manifest.Manifest) ([]domain.Event, error) {
		seen = n.Stored()
		return created(at)(n)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, m.Stored()) {
		t.Errorf("fn saw\n%+v\nwant\n%+v", seen, m.Stored())
	}
	got := getManifest(t, s, m.ID())
	if !reflect.DeepEqual(got, out.Stored()) {
		t.Errorf("read back\n%+v\nComplete returned\n%+v", got, out.Stored())
	}
	if got.Status != manifest.StatusCreated || got.Version != 2 || got.CarrierReference != "PROTOCOL-"+m.ID() ||
		got.Document != manifest.DocumentByCarrier || !got.UpdatedAt.Equal(at) || !got.CreatedAt.Equal(t0) {
		t.Errorf("after completing: %+v", got)
	}
	if stored, err := s.Manifests.Document(ctx, m.ID()); err != nil || !bytes.Equal(stored, document) {
		t.Errorf("document %q (%v), want %q", stored, err, document)
	}
	msgs := s.Written(t)
	want := contract.ManifestCreated{ManifestEvent: contract.ManifestEvent{AccountID: account, Version: 2, OccurredAt: at,
		Manifest: command.ManifestSnapshot(out.Stored())}}
	if len(msgs) != 1 || msgs[0].Name != contract.EventManifestCreated || !outboxtest.SameJSON(t, msgs[0].Payload, want) {
		t.Errorf("written %s, want %+v", msgs, want)
	}
}

// When fn fails, its error is Complete's and nothing is saved or written:
// no document, the manifest still being created.
func aFailedCompleteSavesNothing(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	m := addManifest(t, s, ch, Shipment(account, ch, t0))
	refuse := errors.New("refused")
	if _, err := s.Manifests.Complete(ctx, m.ID(), []byte("%PDF"), func(n *manifest.Manifest) ([]domain.Event, error) {
		events, _ := created(t0.Add(time.Minute))(n)
		return events, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v, want fn's", err)
	}
	if got := getManifest(t, s, m.ID()); !reflect.DeepEqual(got, m.Stored()) {
		t.Errorf("a failed completion was saved: %+v", got)
	}
	if _, err := s.Manifests.Document(ctx, m.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a failed completion's document: %v", err)
	}
	wantNames(t, s)
}

// Forget removes a manifest being created and lets its shipments go; a
// created manifest stays whole, with its document and its shipments.
func forgetRemovesACreationOnly(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	a, b := Shipment(account, ch, t0), Shipment(account, ch, t0)
	creating := addManifest(t, s, ch, a)
	if err := s.Manifests.Forget(ctx, creating.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Manifests.Get(ctx, creating.ID()); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a forgotten manifest: %v", err)
	}
	done := complete(t, s, addManifest(t, s, ch, a).ID(), []byte("%PDF done")) // its shipment was free
	if err := s.Manifests.Forget(ctx, done.ID()); err != nil {
		t.Fatal(err)
	}
	if got := getManifest(t, s, done.ID()); !reflect.DeepEqual(got, done.Stored()) {
		t.Errorf("a created manifest forgotten: %+v", got)
	}
	if d, err := s.Manifests.Document(ctx, done.ID()); err != nil || string(d) != "%PDF done" {
		t.Errorf("a created manifest's document after Forget: %q (%v)", d, err)
	}
	onFields(t, s.Manifests.Add(ctx, newManifest(t, ids.New(ids.Manifest), ch, t0, b, a)),
		map[string]string{"shipment_ids.1": "is on a manifest already"})
	wantNames(t, s, contract.EventManifestCreated)
}

// Stale are the manifests being created last changed before the time
// given, the longest waiting first, at most the limit; created and recent
// ones are not.
func staleManifestsAreCreationsSinceBefore(t *testing.T, s Subject) {
	ctx := t.Context()
	ch := ids.New(ids.ShippingChannel)
	var waiting []string
	for i := range 3 {
		m := newManifest(t, ids.New(ids.Manifest), ch, t0.Add(time.Duration(2-i)*time.Minute), Shipment(account, ch, t0))
		if err := s.Manifests.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
		waiting = append([]string{m.ID()}, waiting...)
	}
	complete(t, s, addManifest(t, s, ch, Shipment(account, ch, t0)).ID(), []byte("%PDF"))
	recent := newManifest(t, ids.New(ids.Manifest), ch, t0.Add(time.Hour), Shipment(account, ch, t0))
	if err := s.Manifests.Add(ctx, recent); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		before time.Time
		limit  int
		want   []string
	}{
		{t0.Add(time.Hour), 10, waiting},
		{t0.Add(time.Hour), 1, waiting[:1]},
		{t0.Add(90 * time.Second), 10, waiting[:2]},
		{t0, 10, nil},
	} {
		got, err := s.Manifests.Stale(ctx, tc.before, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("stale before %s, at most %d: %v, want %v", tc.before.Format(time.TimeOnly), tc.limit, got, tc.want)
		}
	}
}
