package domain_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/faulttest"
)

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// acme is a provider whose settings have a schema like the carriers'.
type acme struct{}

func (acme) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: "acme", Settings: []carrier.Setting{
		{Key: "clientId", Type: carrier.TypeString, Required: true},
		{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true},
		{Key: "mode", Type: carrier.TypeString, Enum: []string{"live", "test"}},
	}}
}

func (acme) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

var (
	providers = carrier.NewRegistry(acme{})
	none      = carrier.NewRegistry() // acme is no longer offered
)

func ptr[T any](v T) *T { return &v }

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

func settings() map[string]any { return map[string]any{"clientId": "c", "clientSecret": "s"} }

// The rules of a new channel: a case that passes and one that fails with
// the path and message the API answers.
func TestNewChannelRules(t *testing.T) {
	const unknown = "is not a setting of provider acme (known: clientId, clientSecret, mode)"
	tests := []struct {
		name                   string
		chName, desc, provider string
		settings               map[string]any
		want                   map[string][]string // nil: passes
	}{
		{"name of 255 and white space", "  " + strings.Repeat("é", 255) + " ", "", "acme", settings(), nil},
		{"name blank", " ", "", "acme", settings(), one("name", "is required")},
		{"name of 256", strings.Repeat("é", 256), "", "acme", settings(), one("name", "must be at most 255 characters")},
		{"name with a bidi override", "Main\u202E", "", "acme", settings(), one("name", `must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`)},
		{"description with a line break, alone of every problem", "", "a\nb", "", nil, one("description", `must not contain control characters or line breaks (found '\n')`)},
		{"description with formatting characters", "Main", "\u05d0\u200f (RTL mark)", "acme", settings(), nil},
		{"description of 2000", "Main", strings.Repeat("é", 2000), "acme", settings(), nil},
		{"description of 2001, alone of every problem", "", strings.Repeat("é", 2001), "", nil,
			one("description", "must be at most 2000 characters")},
		{"provider required", "Main", "", "", settings(), one("provider", "is required")},
		{"provider not offered", "Main", "", "pigeon", settings(), one("provider", "must be one of the providers of GET /v1/providers")},
		{"settings of the schema", "Main", "", "acme", map[string]any{"clientId": "c", "clientSecret": "s", "mode": "test"}, nil},
		{"settings of 4096 characters", "Main", "", "acme", map[string]any{"clientId": strings.Repeat("é", 4096), "clientSecret": strings.Repeat("s", 4096)}, nil},
		{"settings past 4096 characters or with a line break", "Main", "", "acme",
			map[string]any{"clientId": "c\r\nX-Injected: 1", "clientSecret": strings.Repeat("s", 900*1024)},
			map[string][]string{"settings.clientId": {`must not contain control characters or line breaks (found '\r')`},
				"settings.clientSecret": {"must be at most 4096 characters"}}},
		{"no settings", "Main", "", "acme", nil, map[string][]string{"settings.clientId": {"is required"}, "settings.clientSecret": {"is required"}}},
		{"settings against the schema", "Main", "", "acme", map[string]any{"clientId": true, "clientSecret": " ", "mode": "live!", "colour": "red"},
			map[string][]string{"settings.clientId": {"must be a string"}, "settings.clientSecret": {"must not be empty"},
				"settings.mode": {"must be one of: live, test"}, "settings.colour": {unknown}}},
		{"every problem but the description at once", "", "", "acme", map[string]any{"colour": "red"}, map[string][]string{
			"name": {"is required"}, "settings.clientId": {"is required"}, "settings.clientSecret": {"is required"}, "settings.colour": {unknown}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := domain.NewChannel("ch_1", "acc_1", tt.chName, tt.desc, tt.provider, tt.settings, providers, t0)
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) || (err == nil) != (ch != nil) {
				t.Errorf("NewChannel = %v, want %v", got, tt.want)
			}
		})
	}
}

// A new channel is a draft under its name without white space around, its
// secret settings masked.
func TestNewChannel(t *testing.T) {
	ch, err := domain.NewChannel("ch_1", "acc_1", " Main ", "for parcels", "acme", settings(), providers, t0)
	if err != nil {
		t.Fatal(err)
	}
	s := ch.Snapshot()
	if s.Name != "Main" || s.Status != "draft" || s.Settings["clientSecret"] != domain.MaskedSecret || s.Settings["clientId"] != "c" ||
		ch.Settings()["clientSecret"] != "s" || ch.Version() != 1 || !s.CreatedAt.Equal(t0) {
		t.Errorf("new channel %+v", s)
	}
}

// validated is an active channel of acme.
func validated(t *testing.T) *domain.Channel {
	t.Helper()
	ch, err := domain.NewChannel("ch_1", "acc_1", "Main", "", "acme", settings(), providers, t0)
	if err != nil {
		t.Fatal(err)
	}
	ch.ValidationPassed(t0)
	return ch
}

// The rules of an edit: a case that passes and one that fails with the
// path and message the API answers; a refused edit changes nothing.
func TestEditRules(t *testing.T) {
	tests := []struct {
		name      string
		edit      domain.Edit
		providers domain.Providers
		want      map[string][]string // nil: passes
		after     func(t *testing.T, s domain.Snapshot, settings map[string]any)
	}{
		{"renamed", domain.Edit{Name: ptr("  Renamed ")}, providers, nil, func(t *testing.T, s domain.Snapshot, _ map[string]any) {
			if s.Name != "Renamed" || s.Status != "active" {
				t.Errorf("%+v", s)
			}
		}},
		{"name blank", domain.Edit{Name: ptr("")}, providers, one("name", "is required"), nil},
		{"name of 256", domain.Edit{Name: ptr(strings.Repeat("n", 256))}, providers, one("name", "must be at most 255 characters"), nil},
		{"described", domain.Edit{Description: ptr(strings.Repeat("d", 2000))}, providers, nil, nil},
		{"description of 2001, alone of every problem", domain.Edit{Description: ptr(strings.Repeat("d", 2001)), Name: ptr(""), Status: ptr("x")},
			providers, one("description", "must be at most 2000 characters"), nil},
		{"settings replaced, the masked secret kept: back to draft", domain.Edit{Settings: map[string]any{"clientId": "c2", "clientSecret": domain.MaskedSecret}},
			providers, nil, func(t *testing.T, s domain.Snapshot, settings map[string]any) {
				if s.Status != "draft" || s.ValidatedAt != nil || settings["clientId"] != "c2" || settings["clientSecret"] != "s" {
					t.Errorf("%+v %v", s, settings)
				}
			}},
		{"the same settings sent back: still active", domain.Edit{Settings: map[string]any{"clientId": "c", "clientSecret": domain.MaskedSecret}},
			providers, nil, func(t *testing.T, s domain.Snapshot, _ map[string]any) {
				if s.Status != "active" {
					t.Errorf("%+v", s)
				}
			}},
		{"settings merged, a null removing a key", domain.Edit{Settings: map[string]any{"mode": "test", "clientId": "c3"}, MergeSettings: true},
			providers, nil, func(t *testing.T, _ domain.Snapshot, settings map[string]any) {
				if !reflect.DeepEqual(settings, map[string]any{"clientId": "c3", "clientSecret": "s", "mode": "test"}) {
					t.Errorf("%v", settings)
				}
			}},
		{"a required setting removed by a merge", domain.Edit{Settings: map[string]any{"clientId": nil}, MergeSettings: true},
			providers, one("settings.clientId", "is required"), nil},
		{"settings replaced without a required one", domain.Edit{Settings: map[string]any{"clientId": "c"}},
			providers, one("settings.clientSecret", "is required"), nil},
		{"settings of a provider no longer offered", domain.Edit{Settings: settings()}, none,
			one("settings", "cannot change: provider acme is no longer offered"), nil},
		{"paused", domain.Edit{Status: ptr("inactive")}, providers, nil, func(t *testing.T, s domain.Snapshot, _ map[string]any) {
			if s.Status != "inactive" {
				t.Errorf("%+v", s)
			}
		}},
		{"a status it has", domain.Edit{Status: ptr("active")}, providers, nil, nil},
		{"no status", domain.Edit{Status: ptr("paused")}, providers, one("status", "must be active or inactive"), nil},
		{"a status the service sets", domain.Edit{Status: ptr("draft")}, providers, one("status", "must be active or inactive"), nil},
		{"active with settings not validated", domain.Edit{Name: ptr("Renamed"), Settings: map[string]any{"clientId": "c2", "clientSecret": "s2"}, Status: ptr("active")},
			providers, one("status", "cannot become active before its settings pass validation: POST /v1/shipping-channels/ch_1/validate"), nil},
		{"every problem but the description at once", domain.Edit{Name: ptr(" "), Settings: map[string]any{"clientId": 1.0}, Status: ptr("x")}, providers,
			map[string][]string{"name": {"is required"}, "settings.clientId": {"must be a string"}, "settings.clientSecret": {"is required"},
				"status": {"must be active or inactive"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := validated(t)
			before, settingsBefore := ch.Snapshot(), ch.Settings()
			err := ch.Edit(tt.edit, tt.providers)
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Edit = %v, want %v", got, tt.want)
			}
			if err != nil {
				if !reflect.DeepEqual(ch.Snapshot(), before) || !reflect.DeepEqual(ch.Settings(), settingsBefore) {
					t.Errorf("a refused edit changed %+v %v", ch.Snapshot(), ch.Settings())
				}
				return
			}
			if tt.after != nil {
				tt.after(t, ch.Snapshot(), ch.Settings())
			}
		})
	}
}

// A description too long is answered alone, and the same whoever asks:
// CheckDescription is what NewChannel and Edit check first.
func TestCheckDescription(t *testing.T) {
	if err := domain.CheckDescription(strings.Repeat("é", 2000)); err != nil {
		t.Errorf("2000 characters: %v", err)
	}
	if got := fields(t, domain.CheckDescription(strings.Repeat("é", 2001))); !reflect.DeepEqual(got, one("description", "must be at most 2000 characters")) {
		t.Errorf("2001 characters: %v", got)
	}
}

// A credential the carrier renewed replaces the stored one only when that
// is a value the carrier retired, and changes nothing a client sees.
func TestRenewSecret(t *testing.T) {
	ch, err := domain.NewChannel("ch_1", "acc_1", "Main", "", "acme", settings(), providers, t0)
	if err != nil {
		t.Fatal(err)
	}
	ch.ValidationPassed(t0)
	before := ch.Stored()

	if did, err := ch.RenewSecret("clientSecret", []string{"older", "s"}, "s2"); !did || err != nil {
		t.Fatalf("renewing the stored value: %v, %v", did, err)
	}
	after := ch.Stored()
	if after.Settings["clientSecret"] != "s2" || after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) ||
		after.Status != before.Status || after.ValidatedAt != before.ValidatedAt {
		t.Errorf("after a renewal: %+v, before %+v", after, before)
	}
	if before.Settings["clientSecret"] != "s" {
		t.Error("the renewal changed a copy handed out before")
	}
	if ch.MaskedSettings()["clientSecret"] != domain.MaskedSecret {
		t.Error("the renewed secret is not masked")
	}

	// The stored value is none the carrier retired: kept.
	for _, retired := range [][]string{{"s"}, nil, {"s2x"}} {
		if did, err := ch.RenewSecret("clientSecret", retired, "s3"); did || err != nil || ch.Settings()["clientSecret"] != "s2" {
			t.Errorf("retired %v: %v, %v, stored %v", retired, did, err, ch.Settings()["clientSecret"])
		}
	}
	if did, _ := ch.RenewSecret("clientSecret", []string{"s2"}, "s2"); did {
		t.Error("renewed to the value stored")
	}
	if _, err := ch.RenewSecret("clientId", []string{"c"}, "c2"); err == nil || ch.Settings()["clientId"] != "c" {
		t.Errorf("renewed a setting that is not secret: %v", err)
	}
	if _, err := ch.RenewSecret("clientSecret", []string{"s2"}, ""); err == nil {
		t.Error("renewed to nothing")
	}
}
