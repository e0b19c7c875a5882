package carrier_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"shipd/platform/carrier"
)

// FuzzMoneyFromFloat reads the cash_on_delivery_amount of a request: an
// amount it accepts keeps its sign and its value in minor units.
func FuzzMoneyFromFloat(f *testing.F) {
	for _, c := range []struct {
		amount   float64
		currency string
	}{
		{125.5, "CZK"}, {10, "EUR"}, {10.123, "EUR"}, {10.5, "JPY"}, {1000, "JPY"}, {-1, "EUR"}, {0.001, "KWD"}, {0.1 + 0.2, "USD"},
		{1e17, "CZK"}, {-1e300, "JPY"}, {math.Inf(1), "EUR"}, {math.NaN(), "EUR"}, // were accepted as wrapped-round amounts
	} {
		f.Add(c.amount, c.currency)
	}
	f.Fuzz(func(t *testing.T, amount float64, currency string) {
		m, err := carrier.MoneyFromFloat(amount, currency)
		if err != nil {
			return
		}
		if math.IsNaN(amount) || math.IsInf(amount, 0) || m.Currency != currency || (amount > 0) != (m.Minor > 0) && m.Minor != 0 {
			t.Fatalf("MoneyFromFloat(%v, %q) = %+v", amount, currency, m)
		}
		unit := math.Pow10(-carrier.CurrencyDigits(currency))
		if math.Abs(m.Float()-amount) > unit/2+1e-9*math.Abs(amount) {
			t.Fatalf("MoneyFromFloat(%v, %q) = %+v, which is %v", amount, currency, m, m.Float())
		}
	})
}

// FuzzValidateSettings checks any settings object a channel request sends
// against a schema of every setting type: problems are named by settings
// key, and settings without problems hold every required key with its type.
func FuzzValidateSettings(f *testing.F) {
	for _, s := range []string{
		`{"clientId":"c","clientSecret":"s"}`, `{}`, `{"clientId":true,"colour":"red"}`, `{"clientId":"a","clientSecret":"b","mode":"FLIGHT"}`,
		`{"clientId":" ","clientSecret":"s","customerNumber":1.5}`, `{"clientId":"c","clientSecret":"s","insured":"yes","customerNumber":1e300}`,
		`{"clientId":null,"clientSecret":"••••••••"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var settings map[string]any
		if json.Unmarshal([]byte(raw), &settings) != nil {
			return // Decode refuses it before the schema is asked
		}
		errs := info.ValidateSettings(settings)
		known := map[string]carrier.Setting{}
		for _, s := range info.Settings {
			known[s.Key] = s
		}
		for key, msgs := range errs {
			if _, inSchema := known[key]; !inSchema && !hasKey(settings, key) || len(msgs) == 0 {
				t.Fatalf("ValidateSettings(%s) blames %q: %v", raw, key, msgs)
			}
		}
		if len(errs) > 0 {
			return
		}
		for key, v := range settings {
			s, ok := known[key]
			if !ok {
				t.Fatalf("ValidateSettings(%s) let the unknown key %q through", raw, key)
			}
			if v == nil {
				continue
			}
			switch s.Type {
			case carrier.TypeString:
				str, isString := v.(string)
				if !isString || s.Required && strings.TrimSpace(str) == "" {
					t.Fatalf("ValidateSettings(%s) let %s = %v through", raw, key, v)
				}
			case carrier.TypeInteger:
				if n, isNumber := v.(float64); !isNumber || n != math.Trunc(n) {
					t.Fatalf("ValidateSettings(%s) let %s = %v through", raw, key, v)
				}
			case carrier.TypeBoolean:
				if _, isBool := v.(bool); !isBool {
					t.Fatalf("ValidateSettings(%s) let %s = %v through", raw, key, v)
				}
			}
		}
		for _, s := range info.Settings {
			if s.Required && settings[s.Key] == nil {
				t.Fatalf("ValidateSettings(%s) let the required %q be missing", raw, s.Key)
			}
		}
	})
}

func hasKey(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
}
