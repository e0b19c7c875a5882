package command_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"shipd/modules/channels/adapters/memory"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/contract"
	"shipd/platform/fault"
)

// The deleted event carries the channel's last record under a version past
// the last, so every reader that kept the channel drops it, and the
// tracking of the channel's parcels stops with it.
func TestDeleteChannelPublishesItsLastRecord(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	f.validated(t, "ch_1")
	last := f.channel(t, "ch_1")
	f.clock.Advance(time.Second)
	if err := f.delete.Handle(t.Context(), command.DeleteChannel{AccountID: acme, ID: "ch_1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repo.Get(t.Context(), "ch_1"); !fault.Is(err, fault.KindNotFound) {
		t.Fatalf("after delete: %v, want not found", err)
	}
	published := f.repo.Published()
	snap := contract.ShippingChannelSnapshot(last.Snapshot())
	snap.UpdatedAt = f.clock.Now()
	want := contract.ShippingChannelDeleted{ChannelEvent: contract.ChannelEvent{AccountID: acme, Version: last.Version() + 1,
		OccurredAt: f.clock.Now(), ShippingChannel: snap}}
	if got := published[len(published)-1]; !reflect.DeepEqual(got, want) {
		t.Fatalf("published %#v, want %#v", got, want)
	}
	// The channel's parcels stop being tracked with it.
	if stopped := f.repo.TrackingStopped(); !reflect.DeepEqual(stopped, []memory.StoppedTracking{{AccountID: acme, ChannelID: "ch_1"}}) {
		t.Errorf("tracking stopped for %+v, want ch_1's", stopped)
	}
	// Deleting again finds nothing, publishes nothing and stops nothing.
	err := f.delete.Handle(t.Context(), command.DeleteChannel{AccountID: acme, ID: "ch_1"})
	wantKind(t, err, fault.KindNotFound)
	if n := len(f.repo.Published()); n != len(published) || len(f.repo.TrackingStopped()) != 1 {
		t.Errorf("a second delete published %d events, stopped %d", n-len(published), len(f.repo.TrackingStopped())-1)
	}
}

func TestDeleteChannelPassesOnTheRepositorysFailure(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	f.repo.Interfere(func(op, _ string) error {
		if op == "Delete" {
			return errDatabase
		}
		return nil
	})
	if err := f.delete.Handle(t.Context(), command.DeleteChannel{AccountID: acme, ID: "ch_1"}); !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the repository's", err)
	}
}
