package command_test

import (
	"reflect"
	"testing"

	"shipd/modules/channels/app/command"
	"shipd/platform/fault"
)

// Every command on an existing channel answers a missing one not found and
// another account's forbidden, changing nothing, publishing nothing and
// asking no carrier.
func TestCommandsOnAMissingOrAnotherAccountsChannel(t *testing.T) {
	t.Parallel()
	commands := map[string]func(f *fixture, account, id string) error{
		"update": func(f *fixture, account, id string) error {
			return f.update.Handle(t.Context(), command.UpdateChannel{AccountID: account, ID: id, Name: ptr("Stolen"), Status: ptr("inactive")})
		},
		"delete": func(f *fixture, account, id string) error {
			return f.delete.Handle(t.Context(), command.DeleteChannel{AccountID: account, ID: id})
		},
		"validate": func(f *fixture, account, id string) error {
			return f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: account, ID: id})
		},
	}
	for name, run := range commands {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, "ch_1", "Main")
			before, published := f.channel(t, "ch_1").Stored(), len(f.repo.Published())

			wantKind(t, run(f, globex, "ch_1"), fault.KindForbidden)
			wantKind(t, run(f, acme, "ch_missing"), fault.KindNotFound)

			if after := f.channel(t, "ch_1").Stored(); !reflect.DeepEqual(after, before) {
				t.Errorf("changed to %+v", after)
			}
			if got := f.eventsSince(published); len(got) != 0 {
				t.Errorf("published %v", got)
			}
			if calls := f.carrier.calls(); len(calls) != 0 {
				t.Errorf("the carrier was asked %d times", len(calls))
			}
		})
	}
}
