package domain_test

import (
	"testing"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
)

func booked(t *testing.T, price *carrier.Money) domain.Stored {
	t.Helper()
	sh := pending(t, 1)
	if err := sh.Booked("X", []string{"SB000000014CZ"}, price, domain.Label{}, t0); err != nil {
		t.Fatal(err)
	}
	return sh.Stored()
}

func TestBookedKeepsTheCarriersPriceOrNone(t *testing.T) {
	for _, price := range []carrier.Money{{Minor: 1290, Currency: "EUR"}, {Minor: 0, Currency: "CZK"}} {
		st := booked(t, &price)
		if got := st.Price(); got == nil || *got != price {
			t.Errorf("booked at %v: Price() = %v", price, got)
		}
	}
	st := booked(t, nil)
	if st.TotalPriceMinor != nil || st.Currency != "" || st.Price() != nil {
		t.Errorf("booked without a price: stored %v %q, Price() = %v", st.TotalPriceMinor, st.Currency, st.Price())
	}
}

// States stored before missing prices were kept missing hold an amount
// (0) without a currency: no price.
func TestPriceWithoutCurrencyIsNone(t *testing.T) {
	for _, minor := range []int64{0, 1290} {
		st := domain.Stored{TotalPriceMinor: &minor}
		if got := st.Price(); got != nil {
			t.Errorf("%d without a currency: Price() = %v, want none", minor, got)
		}
	}
	if got := (domain.Stored{}).Price(); got != nil {
		t.Errorf("not booked: Price() = %v", got)
	}
}
