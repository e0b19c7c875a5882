package command_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/fault"
	"shipd/platform/logtest"
)

func shipmentParcels(numbers ...string) command.TrackShipmentParcels {
	return command.TrackShipmentParcels{Shipments: []command.ShipmentParcels{shipment("sh_1", "ch_1", numbers...)}}
}

// shipment is account's request to track the parcels of shipment id, booked
// through channel.
func shipment(id, channel string, numbers ...string) command.ShipmentParcels {
	return command.ShipmentParcels{AccountID: account, ShipmentID: id, ChannelID: channel, Provider: fakeCode,
		TrackingNumbers: numbers, Recipient: domain.Recipient{Name: "Jana Nová"}, CashOnDelivery: true}
}

// A booked shipment gets one tracking parcel per parcel, with the default
// check settings, due at once; a number the account already tracks through
// the channel keeps its parcel.
func TestTrackShipmentParcelsOnePerParcel(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_client", "TN2")
	if err := f.trackShipment.Handle(t.Context(), shipmentParcels("TN1", "TN2", "TN3")); err != nil {
		t.Fatal(err)
	}
	var numbers []string
	for _, e := range f.repo.Published()[1:] {
		created, ok := e.(contract.TrackingParcelCreated)
		if !ok {
			t.Fatalf("published %T", e)
		}
		st := f.state(t, created.TrackingParcel.ID)
		if st.ShipmentID != "sh_1" || st.AccountID != account || st.ChannelID != "ch_1" || st.Provider != fakeCode || !st.AwaitsCOD ||
			st.Recipient.Name != "Jana Nová" || st.CheckDelayHours != domain.DefaultCheckDelayHours || st.MaxChecks != domain.DefaultMaxChecks ||
			st.NextCheckAt == nil || !st.NextCheckAt.Equal(clockStart) {
			t.Errorf("%s: %+v", st.TrackingNumber, st)
		}
		numbers = append(numbers, st.TrackingNumber)
	}
	if !slices.Equal(numbers, []string{"TN1", "TN3"}) {
		t.Errorf("made parcels for %v, want TN1 and TN3 (TN2 is tracked already)", numbers)
	}
	if st := f.state(t, "tp_client"); st.ShipmentID != "" || st.Version != 1 {
		t.Errorf("the parcel tracked already changed: %+v", st)
	}
	if got := f.events(t, 1); !slices.Equal(got, []string{"tracking_parcel.created v1 created", "tracking_parcel.created v1 created"}) {
		t.Errorf("events %v", got)
	}
	if n, err := f.queue.Due(t.Context()); err != nil || n != 3 {
		t.Errorf("%d parcels due (%v), want the client's and the two made", n, err)
	}
}

// made describes the parcels events created, in the order published:
// "<channel>/<number> <shipment>".
func made(events []domain.Event) []string {
	var out []string
	for _, e := range events {
		if c, ok := e.(contract.TrackingParcelCreated); ok {
			p := c.TrackingParcel
			shipment := "-"
			if p.ShipmentID != nil {
				shipment = *p.ShipmentID
			}
			out = append(out, p.ShippingChannelID+"/"+p.TrackingNumber+" "+shipment)
		}
	}
	return out
}

// A run of requests makes what they make one after another: the first
// request naming a number makes its parcel, a later one of the run or a
// later run keeps it, and the events follow the requests' order.
func TestTrackShipmentParcelsARunIsItsRequestsInOrder(t *testing.T) {
	t.Parallel()
	second := activeChannel()
	second.ID = "ch_2"
	run := []command.ShipmentParcels{
		shipment("sh_1", "ch_1", "TN1", "TN2"),
		shipment("sh_2", "ch_1", "TN2", "TN0", "TN3"),
		shipment("sh_3", "ch_2", "TN1"),
		shipment("sh_4", "ch_1", "TN3", "TN3", "TN4"),
	}
	together, apart := newFixture(), newFixture()
	for _, f := range []*fixture{together, apart} {
		f.channels.Put(second)
		f.tracked(t, "tp_client", "TN0")
	}
	if err := together.trackShipment.Handle(t.Context(), command.TrackShipmentParcels{Shipments: run}); err != nil {
		t.Fatal(err)
	}
	for _, s := range run {
		if err := apart.trackShipment.Handle(t.Context(), command.TrackShipmentParcels{Shipments: []command.ShipmentParcels{s}}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"ch_1/TN0 -", "ch_1/TN1 sh_1", "ch_1/TN2 sh_1", "ch_1/TN3 sh_2", "ch_2/TN1 sh_3", "ch_1/TN4 sh_4"}
	for name, f := range map[string]*fixture{"as a run": together, "one after another": apart} {
		if got := made(f.repo.Published()); !slices.Equal(got, want) {
			t.Errorf("%s made %v, want %v", name, got, want)
		}
	}
	// Applied again, as a redelivered run is, it makes nothing.
	if err := together.trackShipment.Handle(t.Context(), command.TrackShipmentParcels{Shipments: run}); err != nil {
		t.Fatal(err)
	}
	if got := made(together.repo.Published()); !slices.Equal(got, want) {
		t.Errorf("applied again: made %v, want nothing more than %v", got, want)
	}
}

// The numbers tracked already are logged in one line for the run, each
// with the shipment that named it.
func TestTrackShipmentParcelsLogsTheTrackedInOneLine(t *testing.T) {
	f := newFixture()
	f.tracked(t, "tp_client", "TN1")
	logged := logtest.Capture(t)
	run := command.TrackShipmentParcels{Shipments: []command.ShipmentParcels{shipment("sh_1", "ch_1", "TN1", "TN2"), shipment("sh_2", "ch_1", "TN2")}}
	if err := f.trackShipment.Handle(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "shipment parcels already tracked") ||
		!strings.Contains(lines[0], `parcels="[sh_1/TN1 sh_2/TN2]"`) {
		t.Errorf("logged %q, want one line naming sh_1/TN1 and sh_2/TN2", lines)
	}
}

// A failure of the store is the command's, for its messages to be handled
// again, and nothing of the run stays; a run of no numbers asks the store
// nothing.
func TestTrackShipmentParcelsFailsWithTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.repo.Interfere(failOn("AddAll"))
	if err := f.trackShipment.Handle(t.Context(), shipmentParcels("TN1", "TN2")); !errors.Is(err, errDatabase) {
		t.Errorf("error %v, want the store's", err)
	}
	if err := f.trackShipment.Handle(t.Context(), shipmentParcels()); err != nil {
		t.Errorf("a run of no numbers: %v", err)
	}
	if got := f.repo.Published(); len(got) != 0 {
		t.Errorf("published %v", got)
	}
	if n, err := f.queue.Due(t.Context()); err != nil || n != 0 {
		t.Errorf("%d parcels stored (%v)", n, err)
	}
}

// Deleting a channel stops the checks of each of its parcels that is still
// checked, with tracking_parcel.updated; parcels of other channels, and a
// second run, change nothing.
func TestStopTrackingChannel(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	f.tracked(t, "tp_2", "TN2")
	other := activeChannel()
	other.ID = "ch_2"
	f.channels.Put(other)
	cmd := newParcel("tp_other", "TN1")
	cmd.Parcel.ChannelID = "ch_2"
	if err := f.create.Handle(t.Context(), cmd); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	stop := command.StopTrackingChannel{AccountID: account, ChannelID: "ch_1"}
	for range 2 {
		if err := f.stop.Handle(t.Context(), stop); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"tp_1", "tp_2"} {
		if st := f.state(t, id); st.NextCheckAt != nil || st.LastCheckError != "the shipping channel was deleted; tracking stopped" ||
			st.Version != 2 || !st.UpdatedAt.Equal(f.clock.Now()) {
			t.Errorf("%s: %+v", id, st)
		}
	}
	if st := f.state(t, "tp_other"); st.NextCheckAt == nil || st.Version != 1 {
		t.Errorf("another channel's parcel: %+v", st)
	}
	if got := f.events(t, 3); !slices.Equal(got, []string{"tracking_parcel.updated v2 created", "tracking_parcel.updated v2 created"}) {
		t.Errorf("events %v", got)
	}
	// Another account's channel of that id stops none of account's.
	if err := f.stop.Handle(t.Context(), command.StopTrackingChannel{AccountID: stranger, ChannelID: "ch_2"}); err != nil {
		t.Fatal(err)
	}
	if st := f.state(t, "tp_other"); st.NextCheckAt == nil {
		t.Error("a stranger's channel stopped account's parcel")
	}
}

// A parcel deleted between the listing and its stop is passed over; any
// other failure of the store is the command's.
func TestStopTrackingChannelWithTheStoreFailing(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.tracked(t, "tp_1", "TN1")
	f.tracked(t, "tp_2", "TN2")
	f.repo.Interfere(func(op string, ids []string) error {
		if op == "Update" && ids[0] == "tp_1" {
			return fault.NotFound("Tracking parcel")
		}
		return nil
	})
	stop := command.StopTrackingChannel{AccountID: account, ChannelID: "ch_1"}
	if err := f.stop.Handle(t.Context(), stop); err != nil {
		t.Fatal(err)
	}
	if st := f.state(t, "tp_2"); st.NextCheckAt != nil {
		t.Errorf("the parcel after the one gone was not stopped: %+v", st)
	}
	for _, op := range []string{"TrackedThrough", "Update"} {
		f.repo.Interfere(failOn(op))
		if err := f.stop.Handle(t.Context(), stop); !errors.Is(err, errDatabase) {
			t.Errorf("%s failing: error %v", op, err)
		}
	}
}
