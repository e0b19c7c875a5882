package command_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"shipd/modules/channels/app/command"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// A credential the carrier renewed replaces the stored one when that is
// one the carrier retired (a compare-and-swap), and no client or
// subscriber sees it: no event, the same version and update time.
func TestRenewCredential(t *testing.T) {
	f := withMain(t, func(t *testing.T, f *fixture) { f.validated(t, "ch_1") })
	before := f.channel(t, "ch_1").Stored()
	published := len(f.repo.Published())
	f.clock.Advance(time.Hour)
	renew := func(retired []string, renewed string) error {
		return f.renew.Handle(t.Context(), command.RenewCredential{AccountID: acme, ChannelID: "ch_1", Key: "clientSecret",
			Retired: retired, Renewed: renewed})
	}

	if err := renew([]string{"an-older-one", secret}, "renewed-1"); err != nil {
		t.Fatal(err)
	}
	after := f.channel(t, "ch_1").Stored()
	if after.Settings["clientSecret"] != "renewed-1" {
		t.Errorf("stored %v, want renewed-1", after.Settings["clientSecret"])
	}
	after.Settings["clientSecret"] = secret
	if !reflect.DeepEqual(after, before) {
		t.Errorf("the renewal changed more than the secret:\n%+v\nwas\n%+v", after, before)
	}
	if got := f.eventsSince(published); len(got) != 0 {
		t.Errorf("events %v, want none", got)
	}

	// Another process renewed it first (or the merchant pasted a new one):
	// the value stored is none this renewal retires, and it is kept.
	if err := renew([]string{secret}, "renewed-2"); err != nil {
		t.Fatal(err)
	}
	if got := f.channel(t, "ch_1").Settings()["clientSecret"]; got != "renewed-1" {
		t.Errorf("a renewal over a value it did not retire stored %v", got)
	}

	err := f.renew.Handle(t.Context(), command.RenewCredential{AccountID: globex, ChannelID: "ch_1", Key: "clientSecret",
		Retired: []string{"renewed-1"}, Renewed: "theirs"})
	if !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's channel: %v", err)
	}
	for _, cmd := range []command.RenewCredential{
		{AccountID: acme, ChannelID: "ch_1", Key: "clientId", Retired: []string{"client-1"}, Renewed: "x"},
		{AccountID: acme, ChannelID: "ch_1", Key: "clientSecret", Retired: []string{"renewed-1"}, Renewed: ""},
	} {
		if err := f.renew.Handle(t.Context(), cmd); !fault.Is(err, fault.KindInvalid) {
			t.Errorf("%+v: %v", cmd, err)
		}
	}
	if err := f.renew.Handle(t.Context(), command.RenewCredential{AccountID: acme, ChannelID: "ch_2", Key: "clientSecret",
		Retired: []string{secret}, Renewed: "x"}); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("no such channel: %v", err)
	}
	if got := f.channel(t, "ch_1").Settings()["clientSecret"]; got != "renewed-1" {
		t.Errorf("a refused renewal changed the secret to %v", got)
	}
}

// A carrier that renews a credential while it validates the channel: the
// renewal is kept and the validation recorded on the renewed settings, not
// refused as a change made meanwhile.
func TestValidationKeepsWhatTheCarrierRenewed(t *testing.T) {
	f := withMain(t, nil)
	f.carrier.answers(func(ctx context.Context, s carrier.Settings) error {
		k := s.Keeper()
		if k == nil {
			return errors.New("no keeper")
		}
		stored, err := k.Stored(ctx, "clientSecret")
		if err != nil || stored != secret {
			return errors.New("stored: " + stored)
		}
		return k.Renew(ctx, "clientSecret", []string{stored}, "renewed-at-validation")
	})
	if err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"}); err != nil {
		t.Fatalf("validating: %v", err)
	}
	ch := f.channel(t, "ch_1")
	if ch.Status() != "active" || ch.Settings()["clientSecret"] != "renewed-at-validation" {
		t.Errorf("after validation: %s, secret %v", ch.Status(), ch.Settings()["clientSecret"])
	}

	// A change of another setting meanwhile still makes the validation
	// void.
	f.carrier.answers(func(ctx context.Context, s carrier.Settings) error {
		if err := s.Keeper().Renew(ctx, "clientSecret", []string{"renewed-at-validation"}, "renewed-again"); err != nil {
			return err
		}
		f.clock.Advance(time.Second)
		return f.update.Handle(ctx, command.UpdateChannel{AccountID: acme, ID: "ch_1",
			Settings: map[string]any{"mode": "live"}, MergeSettings: true})
	})
	err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"})
	if !fault.Is(err, fault.KindConflict) {
		t.Errorf("settings edited during validation: %v", err)
	}
}
