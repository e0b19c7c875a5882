package carrier_test

import (
	"testing"

	"shipd/platform/carrier"
)

func TestIsCountryCode(t *testing.T) {
	for s, want := range map[string]bool{
		"CZ": true, "DE": true, "GB": true, "XK": true, // Kosovo: user-assigned, but carriers take it and the API always did
		"cz": false, "UK": false, "EU": false, "ZZ": false, "CZE": false, "": false, " CZ": false, "C": false,
	} {
		if got := carrier.IsCountryCode(s); got != want {
			t.Errorf("IsCountryCode(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsCurrencyCode(t *testing.T) {
	for s, want := range map[string]bool{
		"CZK": true, "EUR": true, "JPY": true, "KWD": true, "XXX": true,
		"czk": false, "XYZ": false, "EURO": false, "EU": false, "": false, " EUR": false,
	} {
		if got := carrier.IsCurrencyCode(s); got != want {
			t.Errorf("IsCurrencyCode(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsEmailAddress(t *testing.T) {
	for s, want := range map[string]bool{
		"jana@example.test": true, "a@b.c": true, "ä@b.test": true, `"a b"@example.test`: true, "first.last+tag@sub.example.test": true,
		"": false, "not-an-email": false, "a@b": false, "Jana <jana@example.test>": false, " a@b.test": false, "a@b.test\n": false,
		"a..b@example.test": false, "a@-b.test": false, "a@b_c.test": false, "a@b.1": false,
	} {
		if got := carrier.IsEmailAddress(s); got != want {
			t.Errorf("IsEmailAddress(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsCashCurrency(t *testing.T) {
	for _, c := range []string{"EUR", "CZK", "PLN", "USD", "JPY", "XAF", "XOF", "XPF", "XCD", "XCG"} {
		if !carrier.IsCashCurrency(c) {
			t.Errorf("%s is money, refused", c)
		}
	}
	for _, c := range []string{"XXX", "XTS", "XAU", "XAG", "XPD", "XPT", "XDR", "XSU", "XUA", "XBA", "XBD", "CLF", "USN", "UYI", "XYZ", "eur", ""} {
		if carrier.IsCashCurrency(c) {
			t.Errorf("%s is not money, accepted", c)
		}
	}
}
