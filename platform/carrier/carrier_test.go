package carrier_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"shipd/platform/carrier"
)

var info = carrier.ProviderInfo{
	Code: "acme",
	Name: "Acme Parcel",
	Settings: []carrier.Setting{
		{Key: "clientId", Type: carrier.TypeString, Required: true},
		{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true},
		{Key: "mode", Type: carrier.TypeString, Enum: []string{"live", "test"}},
		{Key: "insured", Type: carrier.TypeBoolean},
		{Key: "customerNumber", Type: carrier.TypeInteger},
		{Key: "apiToken", Type: carrier.TypeString, Secret: true},
	},
}

func valid() map[string]any {
	return map[string]any{"clientId": "c", "clientSecret": "s"}
}

func with(extra map[string]any) map[string]any {
	s := valid()
	for k, v := range extra {
		s[k] = v
	}
	return s
}

const knownKeys = "(known: clientId, clientSecret, mode, insured, customerNumber, apiToken)"

func TestValidateSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]any
		want     map[string][]string
	}{
		{"minimal", valid(), map[string][]string{}},
		{"every setting, right types", with(map[string]any{"mode": "live", "insured": true, "customerNumber": float64(12345), "apiToken": "t"}), map[string][]string{}},
		{"nothing", map[string]any{}, map[string][]string{"clientId": {"is required"}, "clientSecret": {"is required"}}},
		{"required null", with(map[string]any{"clientId": nil}), map[string][]string{"clientId": {"is required"}}},
		{"optional null", with(map[string]any{"mode": nil}), map[string][]string{}},
		{"required empty string", with(map[string]any{"clientSecret": ""}), map[string][]string{"clientSecret": {"must not be empty"}}},
		{"required blank string", with(map[string]any{"clientSecret": "  \t"}), map[string][]string{"clientSecret": {"must not be empty"}}},
		{"string given a number", with(map[string]any{"clientId": float64(1)}), map[string][]string{"clientId": {"must be a string"}}},
		{"string given a boolean", with(map[string]any{"mode": true}), map[string][]string{"mode": {"must be a string"}}},
		{"boolean given a string", with(map[string]any{"insured": "true"}), map[string][]string{"insured": {"must be a boolean"}}},
		{"integer given a fraction", with(map[string]any{"customerNumber": 1.5}), map[string][]string{"customerNumber": {"must be an integer"}}},
		{"integer given a string", with(map[string]any{"customerNumber": "12"}), map[string][]string{"customerNumber": {"must be an integer"}}},
		{"integer given a negative whole number", with(map[string]any{"customerNumber": float64(-3)}), map[string][]string{}},
		{"enum value unknown", with(map[string]any{"mode": "sandbox"}), map[string][]string{"mode": {"must be one of: live, test"}}},
		{"unknown keys", with(map[string]any{"zeta": 1, "alpha": "x"}), map[string][]string{
			"alpha": {"is not a setting of provider acme " + knownKeys},
			"zeta":  {"is not a setting of provider acme " + knownKeys},
		}},
		{"several faults at once", map[string]any{"clientId": "", "insured": "yes", "extra": true}, map[string][]string{
			"clientId":     {"must not be empty"},
			"clientSecret": {"is required"},
			"insured":      {"must be a boolean"},
			"extra":        {"is not a setting of provider acme " + knownKeys},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := info.ValidateSettings(tt.settings)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ValidateSettings(%v)\n got  %v\n want %v", tt.settings, got, tt.want)
			}
		})
	}
}

func TestSecretKeys(t *testing.T) {
	want := map[string]bool{"clientSecret": true, "apiToken": true}
	if got := info.SecretKeys(); !reflect.DeepEqual(got, want) {
		t.Errorf("SecretKeys() = %v, want %v", got, want)
	}
	if got := (carrier.ProviderInfo{}).SecretKeys(); len(got) != 0 {
		t.Errorf("SecretKeys() of a provider without settings = %v", got)
	}
}

// provider is the smallest carrier.Provider: the registry only reads Info.
type provider struct{ info carrier.ProviderInfo }

func (p provider) Info() carrier.ProviderInfo { return p.info }

func (provider) ValidateCredentials(context.Context, carrier.Settings) error { return nil }

func TestRegistry(t *testing.T) {
	reg := carrier.NewRegistry(
		provider{carrier.ProviderInfo{Code: "ppl", Name: "PPL"}},
		provider{carrier.ProviderInfo{Code: "dhl_parcel_de", Name: "DHL"}},
		provider{carrier.ProviderInfo{Code: "sandbox", Name: "Sandbox"}},
	)

	p, ok := reg.Get("ppl")
	if !ok || p.Info().Name != "PPL" {
		t.Errorf("Get(ppl) = %v, %v", p, ok)
	}
	if p, ok := reg.Get("nope"); ok || p != nil {
		t.Errorf("Get(nope) = %v, %v; want nil, false", p, ok)
	}

	wantCodes := []string{"dhl_parcel_de", "ppl", "sandbox"}
	if got := reg.Codes(); !reflect.DeepEqual(got, wantCodes) {
		t.Errorf("Codes() = %v, want %v", got, wantCodes)
	}
	var infoCodes []string
	for _, i := range reg.Infos() {
		infoCodes = append(infoCodes, i.Code)
	}
	if !reflect.DeepEqual(infoCodes, wantCodes) {
		t.Errorf("Infos() codes = %v, want %v", infoCodes, wantCodes)
	}

	empty := carrier.NewRegistry()
	if len(empty.Codes()) != 0 || len(empty.Infos()) != 0 {
		t.Error("an empty registry lists providers")
	}
}

func TestSettingsAccessors(t *testing.T) {
	s := carrier.Settings{"name": "x", "flag": true, "num": float64(2)}
	if s.String("name") != "x" || s.String("num") != "" || s.String("missing") != "" {
		t.Errorf("String: %q %q %q", s.String("name"), s.String("num"), s.String("missing"))
	}
	if !s.Bool("flag") || s.Bool("name") || s.Bool("missing") {
		t.Error("Bool returned the wrong values")
	}
}

func TestRejectionError(t *testing.T) {
	if got := (&carrier.Rejection{Field: "clientSecret", Message: "wrong"}).Error(); got != "clientSecret: wrong" {
		t.Errorf("with field: %q", got)
	}
	if got := (&carrier.Rejection{Message: "wrong"}).Error(); got != "wrong" {
		t.Errorf("without field: %q", got)
	}
}

// One rule for a shipment's label format: the request's, else the channel's
// setting, else the default; case and surrounding white space never count.
func TestLabelFormat(t *testing.T) {
	tests := []struct {
		name      string
		requested string
		settings  carrier.Settings
		want      string
		own       bool // the channel's settings chose the default
	}{
		{"requested", "zpl", carrier.Settings{"defaultLabelFormat": "epl"}, "zpl", true},
		{"requested in capitals", "EPL", nil, "epl", false},
		{"requested with white space", " Zpl\t", nil, "zpl", false},
		{"the channel's setting", "", carrier.Settings{"defaultLabelFormat": "zpl"}, "zpl", true},
		{"the channel's setting in capitals with white space", "", carrier.Settings{"defaultLabelFormat": " ZPL "}, "zpl", true},
		{"white space requested is none", "  ", carrier.Settings{"defaultLabelFormat": "epl"}, "epl", true},
		{"no setting", "", carrier.Settings{"clientId": "c"}, "pdf", false},
		{"no settings at all", "", nil, "pdf", false},
		{"a blank setting is none", "", carrier.Settings{"defaultLabelFormat": " "}, "pdf", false},
		{"a setting that is no string is none", "", carrier.Settings{"defaultLabelFormat": 5.0}, "pdf", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.settings.LabelFormat(tt.requested); got != tt.want {
				t.Errorf("LabelFormat(%q) = %q, want %q", tt.requested, got, tt.want)
			}
			def, own := tt.settings.DefaultLabelFormat()
			if tt.requested == "" && def != tt.want || own != tt.own {
				t.Errorf("DefaultLabelFormat() = %q, %v, want own %v", def, own, tt.own)
			}
		})
	}
}

// A refusal is found whether the carrier gave one reason or several, and
// wrapped; a carrier that could not be reached refused nothing.
func TestRefusalsOf(t *testing.T) {
	one := carrier.Reject("parcels.0.weight_amount", "too heavy")
	two := carrier.Rejections{one, carrier.Reject("", "not served")}
	for _, tc := range []struct {
		err  error
		want []*carrier.Rejection
		ok   bool
	}{
		{nil, nil, false},
		{fmt.Errorf("%w: 503", carrier.ErrUnavailable), nil, false},
		{one, []*carrier.Rejection{one}, true},
		{fmt.Errorf("booking: %w", one), []*carrier.Rejection{one}, true},
		{fmt.Errorf("booking: %w", two), two, true},
	} {
		got, ok := carrier.RefusalsOf(tc.err)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("RefusalsOf(%v) = %v, %v; want %v, %v", tc.err, got, ok, tc.want, tc.ok)
		}
	}
}
