package carrier

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Money is an amount in the currency's minor units (cents), so sums and
// comparisons are exact.
type Money struct {
	Minor    int64
	Currency string // ISO 4217
}

// Float returns the amount in major units, as the API shows it.
func (m Money) Float() float64 {
	return float64(m.Minor) / math.Pow10(CurrencyDigits(m.Currency))
}

// String formats the amount with the currency's digits, e.g. "125.50 CZK".
func (m Money) String() string {
	return strconv.FormatFloat(m.Float(), 'f', CurrencyDigits(m.Currency), 64) + " " + m.Currency
}

// maxMinor is the most minor units a float64 counts exactly; past int64's
// range the conversion would wrap a huge amount round to a negative one.
const maxMinor = 1 << 53

// MoneyFromFloat converts a major-unit amount, refusing more decimals than
// the currency has.
func MoneyFromFloat(amount float64, currency string) (Money, error) {
	digits := CurrencyDigits(currency)
	scaled := amount * math.Pow10(digits)
	rounded := math.Round(scaled)
	if !(math.Abs(rounded) <= maxMinor) { // also NaN
		return Money{}, errors.New("is too large")
	}
	if math.Abs(scaled-rounded) > 1e-6 {
		return Money{}, fmt.Errorf("must have at most %d decimal places for %s", digits, currency)
	}
	return Money{Minor: int64(rounded), Currency: currency}, nil
}

// CurrencyDigits is the number of minor-unit digits of an ISO 4217 currency
// (ISO 4217 list, 2024): 0 for the yen and the like, 3 for the dinars, 2 else.
func CurrencyDigits(currency string) int {
	switch currency {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3
	default:
		return 2
	}
}
