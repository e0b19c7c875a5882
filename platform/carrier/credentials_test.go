package carrier_test

import (
	"context"
	"encoding/json"
	"testing"

	"shipd/platform/carrier"
)

type keeper struct{ stored string }

func (k *keeper) Stored(context.Context, string) (string, error) { return k.stored, nil }
func (k *keeper) Renew(_ context.Context, _ string, _ []string, renewed string) error {
	k.stored = renewed
	return nil
}

// A keeper travels with a copy of the settings, and only one put there by
// WithKeeper is one: settings read from JSON cannot forge it.
func TestSettingsCarryTheirKeeper(t *testing.T) {
	s := carrier.Settings{"token": "a"}
	k := &keeper{}
	with := s.WithKeeper(k)
	if with.Keeper() != k || with.String("token") != "a" {
		t.Errorf("WithKeeper: keeper %v, token %q", with.Keeper(), with.String("token"))
	}
	if s.Keeper() != nil || len(s) != 1 {
		t.Errorf("the original settings changed: %v", s)
	}
	if carrier.Settings(nil).WithKeeper(k).Keeper() != k {
		t.Error("no keeper on nil settings")
	}
	var forged carrier.Settings
	if err := json.Unmarshal([]byte(`{"\u0000credentialKeeper": "x"}`), &forged); err != nil {
		t.Fatal(err)
	}
	if forged.Keeper() != nil || len(forged) != 1 {
		t.Errorf("settings from JSON gave a keeper: %v", forged)
	}
}
