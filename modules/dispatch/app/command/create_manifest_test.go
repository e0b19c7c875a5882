package command_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/dispatch/adapters/repositorytest"
	"shipd/modules/dispatch/app/command"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

// manifestOf is account's manifest under id of the shipments named, or of
// every undispatched one of the channel when none are.
func manifestOf(id string, shipments ...domain.Shipment) command.CreateManifest {
	r := manifest.Request{ChannelID: channelID}
	if len(shipments) > 0 {
		r.ShipmentIDs = idsOf(shipments...)
	}
	return command.CreateManifest{AccountID: account, ManifestID: id, Request: r}
}

// manifestState is the manifest as stored, and its document.
func (f *fixture) manifestState(t *testing.T, id string) (manifest.Stored, []byte) {
	t.Helper()
	m, err := f.manifests.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("reading %s: %v", id, err)
	}
	doc, err := f.manifests.Document(t.Context(), id)
	if err != nil && !fault.Is(err, fault.KindNotFound) {
		t.Fatal(err)
	}
	return m.Stored(), doc
}

// noManifest fails t unless manifest id is not stored.
func (f *fixture) noManifest(t *testing.T, id string) {
	t.Helper()
	if _, err := f.manifests.Get(t.Context(), id); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("manifest %s is stored (%v)", id, err)
	}
}

// A request's own problems are answered before its channel is looked up.
func TestCreateManifestAnswersTheRequestsProblemsFirst(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.channels.Fail(channelID, fault.Forbidden("not yours"))
	sh := f.created(1)[0]
	cmd := manifestOf("mnf_1", sh, sh)
	cmd.Request.ChannelID = ""
	faulttest.WantFields(t, f.manifest.Handle(t.Context(), cmd), map[string]string{
		"shipping_channel_id": "is required", "shipment_ids.1": "repeats shipment_ids.0"})
	if f.channels.Asked() != 0 || f.carrier.calls() != [5]int{} || len(f.documents.asked()) != 0 {
		t.Errorf("asked the channels module %d times, the carrier %v", f.channels.Asked(), f.carrier.calls())
	}
	f.noManifest(t, "mnf_1")
}

// A carrier that makes its own document is asked once for the named
// shipments, under the manifest's id, from the first one's sender and
// origin; its document and reference are kept with the manifest, created,
// and manifest.created says so. shipd draws nothing.
func TestCreateManifestKeepsTheCarriersDocument(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(3)
	f.clock.Advance(time.Minute)
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments[2], shipments[0])); err != nil {
		t.Fatal(err)
	}
	got, doc := f.manifestState(t, "mnf_1")
	if got.Status != manifest.StatusCreated || got.Document != manifest.DocumentByCarrier || got.CarrierReference != "PROT-mnf_1" ||
		!reflect.DeepEqual(got.ShipmentIDs, idsOf(shipments[2], shipments[0])) || got.ParcelCount != 4 || got.TotalWeightKG != 3.1 ||
		got.Date != "2026-11-30" || got.Version != 2 || !got.CreatedAt.Equal(clockStart.Add(time.Minute)) {
		t.Errorf("stored %+v", got)
	}
	if string(doc) != "%PDF the carrier's protocol mnf_1" {
		t.Errorf("document %q", doc)
	}
	_, _, _, _, handovers := f.carrier.asked()
	want := carrier.ManifestRequest{Key: "mnf_1", Date: "2026-11-30", Sender: shipments[2].Sender, Origin: shipments[2].Origin,
		Shipments: []carrier.DispatchShipment{shipments[2].Carried(), shipments[0].Carried()}}
	if len(handovers) != 1 || !reflect.DeepEqual(handovers[0], want) {
		t.Errorf("handed over %+v, want %+v", handovers, want)
	}
	if drawn := f.documents.asked(); len(drawn) != 0 {
		t.Errorf("shipd drew %d documents", len(drawn))
	}
	f.wantEvents(t, 0, "manifest.created v2 created mnf_1")
}

// shipd draws its handover document where the carrier answered none, where
// the provider makes none, and for a provider without any dispatch of its
// own; the carrier's reference is kept where it gave one.
func TestCreateManifestDrawsShipdsDocument(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		setup     func(f *fixture)
		reference string
		handovers int
	}{
		{"the carrier answered none", func(f *fixture) {
			f.carrier.program(func(c *fakeDispatcher) {
				c.onManifest = func(carrier.ManifestRequest) (carrier.CarrierManifest, error) {
					return carrier.CarrierManifest{Reference: "2026-11-30"}, nil
				}
			})
		}, "2026-11-30", 1},
		{"the provider makes none", func(f *fixture) {
			f.carrier.set(func(d *carrier.DispatchInfo) { d.Manifest = carrier.ManifestByShipd })
		}, "", 0},
		{"a provider without dispatch", func(f *fixture) {
			channelstest.Changed(channelID, func(ch *channels.ChannelAccess) { ch.Provider = shipperCode })(f.channels)
		}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			shipments := f.created(2)
			tc.setup(f)
			if err := f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments...)); err != nil {
				t.Fatal(err)
			}
			got, doc := f.manifestState(t, "mnf_1")
			if got.Status != manifest.StatusCreated || got.Document != manifest.DocumentByShipd || got.CarrierReference != tc.reference ||
				!bytes.Equal(doc, []byte("%PDF shipd's handover mnf_1")) {
				t.Errorf("stored %+v with %q", got, doc)
			}
			if n := f.carrier.calls()[4]; n != tc.handovers {
				t.Errorf("the carrier was asked %d manifests, want %d", n, tc.handovers)
			}
			drawn := f.documents.asked()
			provider, _ := f.providers.Get(got.Provider)
			want := command.Handover{Carrier: provider.Info().Name, ChannelName: "Main warehouse", ManifestID: "mnf_1",
				Date: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Sender: shipments[0].Sender, Origin: shipments[0].Origin,
				Shipments: shipments}
			if len(drawn) != 1 || !reflect.DeepEqual(drawn[0], want) {
				t.Errorf("drew %+v\nwant %+v", drawn, want)
			}
			f.wantEvents(t, 0, "manifest.created v2 created mnf_1")
		})
	}
}

// A manifest of no named shipments takes every created one of the channel
// no manifest holds, oldest first; once all are handed over there is
// nothing to take. A shipment is on one manifest: naming it again is
// refused on its index, before the carrier is asked.
func TestCreateManifestHoldsItsShipments(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(3)
	f.shipments.Put(repositorytest.Shipment(account, "ch_2", clockStart.Add(-time.Hour)))
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments[1])); err != nil {
		t.Fatal(err)
	}
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_2")); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.manifestState(t, "mnf_2"); !reflect.DeepEqual(got.ShipmentIDs, idsOf(shipments[0], shipments[2])) {
		t.Errorf("the undispatched ones: %v, want %v", got.ShipmentIDs, idsOf(shipments[0], shipments[2]))
	}
	faulttest.WantFields(t, f.manifest.Handle(t.Context(), manifestOf("mnf_3")),
		map[string]string{"shipment_ids": "the channel has no created shipment that is not on a manifest"})
	more := f.created(1)
	faulttest.WantFields(t, f.manifest.Handle(t.Context(), manifestOf("mnf_4", more[0], shipments[2])),
		map[string]string{"shipment_ids.1": "is on a manifest already"})
	f.noManifest(t, "mnf_3")
	f.noManifest(t, "mnf_4")
	if n := f.carrier.calls()[4]; n != 2 {
		t.Errorf("the carrier was asked %d manifests, want 2", n)
	}
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_5", more[0])); err != nil {
		t.Errorf("the refused manifest held its other shipment: %v", err)
	}
}

// Each named shipment must be a created one of the account's channel the
// module knows; each other one is refused on its index, and nothing is
// asked or stored.
func TestCreateManifestRefusesShipmentsItCannotHandOver(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(5)
	theirs, elsewhere, pending, unknown := shipments[1], shipments[2], shipments[3], shipments[4]
	theirs.AccountID, elsewhere.ChannelID, pending.Status = stranger, "ch_2", "pending"
	f.shipments.Put(theirs, elsewhere, pending)
	f.shipments.Delete(unknown.ID)
	faulttest.WantFields(t, f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments...)), map[string]string{
		"shipment_ids.1": "is a shipment of another account",
		"shipment_ids.2": "is a shipment of another shipping channel (ch_2)",
		"shipment_ids.3": "is not created at the carrier yet",
		"shipment_ids.4": "does not name a shipment this module knows",
	})
	f.noManifest(t, "mnf_1")
	if f.carrier.calls()[4] != 0 || len(f.documents.asked()) != 0 {
		t.Error("a refused manifest reached the carrier or the document")
	}
	if got, err := f.shipments.Undispatched(t.Context(), account, channelID, 10); err != nil || len(got) != 1 {
		t.Errorf("a refused manifest held shipments: %d undispatched (%v)", len(got), err)
	}
}

// A carrier that refuses the manifest, one that cannot be reached, and a
// document shipd cannot draw leave nothing: the manifest is forgotten and
// its shipments are free for the next.
func TestCreateManifestForgetsWhatFailed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(f *fixture)
		check func(t *testing.T, err error)
	}{
		{"refused", func(f *fixture) {
			f.carrier.program(func(c *fakeDispatcher) {
				c.onManifest = func(carrier.ManifestRequest) (carrier.CarrierManifest, error) {
					return carrier.CarrierManifest{}, carrier.Reject("", "the day is closed already")
				}
			})
		}, func(t *testing.T, err error) {
			faulttest.WantFields(t, err, map[string]string{"carrier": "the day is closed already"})
			if f, _ := fault.As(err); f.Code != "carrier_rejected" || f.Message != "The carrier fakedispatch refused the manifest." {
				t.Errorf("fault %+v", f)
			}
		}},
		{"unreachable", func(f *fixture) {
			f.carrier.program(func(c *fakeDispatcher) {
				c.onManifest = func(carrier.ManifestRequest) (carrier.CarrierManifest, error) {
					return carrier.CarrierManifest{}, unavailable("502")
				}
			})
		}, func(t *testing.T, err error) {
			faulttest.WantKind(t, err, fault.KindUnavailable)
			if f, _ := fault.As(err); f.Message != "The carrier fakedispatch could not be reached; no manifest was made. Try again later." {
				t.Errorf("message %q", f.Message)
			}
		}},
		{"not drawn", func(f *fixture) {
			f.carrier.set(func(d *carrier.DispatchInfo) { d.Manifest = carrier.ManifestByShipd })
			f.documents.err = fault.Field("shipment_ids", "cannot be put on shipd's handover document: too many parcels")
		}, func(t *testing.T, err error) {
			faulttest.WantFields(t, err, map[string]string{"shipment_ids": "too many parcels"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			shipments := f.created(2)
			tc.setup(f)
			tc.check(t, f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments...)))
			f.noManifest(t, "mnf_1")
			f.wantEvents(t, 0)
			if got, err := f.shipments.Undispatched(t.Context(), account, channelID, 10); err != nil || len(got) != 2 {
				t.Errorf("%d shipments undispatched after the failure (%v), want both", len(got), err)
			}
		})
	}
}

// A manifest whose completion could not be stored stays being created,
// holding its shipments, until ReleaseManifests lets it go once it is
// older than a live request can be; a created manifest is never let go.
func TestReleaseManifestsLetsWhatWasLeftBehindGo(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(3)
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments[0])); err != nil {
		t.Fatal(err)
	}
	f.manifests.Interfere(failOn("Complete"))
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_2", shipments[1])); !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the store's", err)
	}
	f.clock.Advance(time.Second)
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_3", shipments[2])); !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the store's", err)
	}
	f.manifests.Interfere(nil)
	if got, _ := f.manifestState(t, "mnf_2"); got.Status != manifest.StatusCreating {
		t.Fatalf("left %s", got.Status)
	}

	release := func(limit int) {
		t.Helper()
		if err := f.release.Handle(t.Context(), command.ReleaseManifests{Limit: limit}); err != nil {
			t.Fatal(err)
		}
	}
	// Now, a second after mnf_2 was stored: it is older than twice the
	// carrier's timeout, mnf_3 (stored now) is not.
	release(10)
	f.noManifest(t, "mnf_2")
	f.manifestState(t, "mnf_3")
	f.clock.Advance(time.Second)
	release(0)
	f.manifestState(t, "mnf_3")
	release(1)
	f.noManifest(t, "mnf_3")
	if got, _ := f.manifestState(t, "mnf_1"); got.Status != manifest.StatusCreated {
		t.Errorf("a created manifest became %s", got.Status)
	}
	if got, err := f.shipments.Undispatched(t.Context(), account, channelID, 10); err != nil || !reflect.DeepEqual(idsOf(got...), idsOf(shipments[1:]...)) {
		t.Errorf("undispatched %v (%v), want the released ones", idsOf(got...), err)
	}
	f.manifests.Interfere(failOn("Stale"))
	if err := f.release.Handle(t.Context(), command.ReleaseManifests{Limit: 10}); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
}

// A creation is left behind only once it is older than twice the carrier's
// timeout, the longest a live request asks the carrier.
func TestReleaseManifestsWaitsTwiceTheCarrierTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture()
	shipments := f.created(1)
	f.manifests.Interfere(failOn("Complete"))
	if err := f.manifest.Handle(t.Context(), manifestOf("mnf_1", shipments...)); !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the store's", err)
	}
	f.manifests.Interfere(nil)
	f.clock.Advance(2 * carrierTimeout)
	if err := f.release.Handle(t.Context(), command.ReleaseManifests{Limit: 10}); err != nil {
		t.Fatal(err)
	}
	f.manifestState(t, "mnf_1")
	f.clock.Advance(time.Millisecond)
	if err := f.release.Handle(t.Context(), command.ReleaseManifests{Limit: 10}); err != nil {
		t.Fatal(err)
	}
	f.noManifest(t, "mnf_1")
}
