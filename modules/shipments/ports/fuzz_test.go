package ports_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"shipd"
	"shipd/modules/shipments/domain"
	"shipd/modules/shipments/ports"
	"shipd/platform/apptest"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// bodySeeds are the bodies of the tests and the README for channel ch:
// good ones, each of the refused ones, and edits.
func bodySeeds(ch string) []string {
	good := shipmentBody(ch)
	noEmail := map[string]any{"first_name": "J", "email_address": "not-an-email", "phone_number": "1"}
	single := with(good, "parcel", parcel(2))
	delete(single, "parcels")
	bodies := []any{
		good, single,
		with(shipmentBody(ch, parcel(1.5), parcel(2), parcel(0.4)), "cash_on_delivery_amount", 125.5, "cash_on_delivery_currency", "czk"),
		with(good, "label_format", "ZPL", "shipping_date", time.Now().AddDate(0, 0, 7).Format(time.DateOnly), "metadata", map[string]any{"shop": "eu"}, "enable_tracking", false,
			"additional_services", []string{"SMS"}),
		shipmentBody(ch, parcel(1), parcel(0)),
		shipmentBody(ch, parcel(1), with(parcel(1), "weight_amount", "heavy")),
		shipmentBody(ch, with(parcel(1), "weight_unit", "stone", "dimension_unit", "FT", "parcel_type", "crate")),
		with(good, "parcels", []any{}), with(good, "parcels", "many"),
		with(good, "cash_on_delivery_amount", 10), with(good, "cash_on_delivery_currency", "EUR"),
		// Issue 31's findings: control, bidi and zero-width characters, a
		// non-currency, a weight below any scale, a date in 9999.
		with(good, "reference_number", "ORDER\r\nX-Injected: 1"), with(good, "reference_number", "ORDER\u202e1"),
		with(good, "pickup_point_id", "KRA\u200b010"),
		with(good, "cash_on_delivery_amount", 10, "cash_on_delivery_currency", "XXX"),
		shipmentBody(ch, with(parcel(1), "weight_amount", 5e-324)),
		with(good, "shipping_date", "9999-12-31"),
		with(good, "cash_on_delivery_amount", 10.123, "cash_on_delivery_currency", "EUR"),
		with(good, "cash_on_delivery_amount", 10.5, "cash_on_delivery_currency", "JPY"),
		with(good, "cash_on_delivery_amount", 10, "cash_on_delivery_currency", "XYZ"),
		with(good, "cash_on_delivery_amount", -1, "cash_on_delivery_currency", "EUR"),
		with(good, "cash_on_delivery_amount", 1e17, "cash_on_delivery_currency", "CZK"),
		with(good, "recipient_contact", noEmail),
		with(good, "sender_contact", map[string]any{"email_address": "a@b.test", "phone_number": "1"}),
		with(good, "destination_address", map[string]any{"street_name": "x", "country_code": "XX"}),
		map[string]any{"shipping_channel_id": ch, "parcels": []any{parcel(1)}},
		with(good, "label_format", "png"), with(good, "shipping_date", "2001-01-01"), with(good, "shipping_date", "tomorrow"),
		with(good, "metadata", []int{1}), with(good, "shipping_channel_id", ""),
		with(good, "shipping_channel_id", "ch_01JD0000000000000000000000"),
		map[string]any{"reference_number": "ORDER-2002", "metadata": map[string]any{"shop": "eu"}, "enable_tracking": false, "status": "delivered"},
		map[string]any{"metadata": "x"}, map[string]any{"reference_number": strings.Repeat("r", 256)},
		// Members no shipment body has, at every depth of its structure;
		// metadata's keys are free.
		with(good, "cash_on_delivery_amout", 125.5, "cash_on_delivery_currency", "CZK"), with(good, "bogus", 1),
		shipmentBody(ch, parcel(1), with(parcel(2), "weigth_amount", 2)), with(single, "parcel", with(parcel(2), "colour", "red")),
		with(good, "sender_contact", map[string]any{"company_name": "Acme", "emial": "a@b.test", "phone_number": "1"}),
		with(good, "destination_address", map[string]any{"street_name": "x", "zip": "60200"}, "metadata", map[string]any{"bogus": 1}),
		map[string]any{"referense_number": "ORDER-2002"}, map[string]any{"Reference_Number": "ORDER-2002", "status": "delivered"},
	}
	var out []string
	for _, b := range bodies {
		raw, _ := json.Marshal(b)
		out = append(out, string(raw))
	}
	return append(out, `{"reference_number":"Obj\u00e9dn\u00e1vka","metadata":{"pozn\u00e1mka":"\u00e1"}}`,
		`{"reference_number":"\u0000"}`, `{"metadata":{"\u0000":1}}`, `{"reference_number":`, `[]`, ``)
}

// today is the service clock's day in the pure checks.
var today = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// FuzzShipmentRequests decodes any body as POST /v1/shipments and PUT/PATCH
// do before the app sees it: a refusal is a 400 or 422, and a shipment that
// passes has 1 to carrier.MaxParcelsPerShipment parcels of known units
// within their limits, a known label format, a shipping date from today to
// the 30-day horizon, country codes, a reference and pickup point free of
// control, bidi and zero-width characters, and cash on delivery of a
// positive amount that its minor units keep, in a real currency (issue 31).
func FuzzShipmentRequests(f *testing.F) {
	for _, b := range bodySeeds("ch_01JD0000000000000000000000") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var create ports.CreateRequest
		err := apptest.DecodeBody(body, &create)
		var amount float64
		if create.CashOnDeliveryAmount != nil {
			amount = *create.CashOnDeliveryAmount
		}
		if err == nil {
			st, err := create.Check(today)
			if apptest.CheckRefusal(t, err) {
				checkShipment(t, st.LabelFormat, st.ShippingDate, st.ReferenceNumber, len(st.Parcels))
				for _, p := range st.Parcels {
					if !slices.Contains([]string{"package", "envelope", "pallet"}, p.ParcelType) ||
						!slices.Contains([]string{"CM", "MM", "IN"}, p.DimensionUnit) || !slices.Contains([]string{"KG", "G", "LB"}, p.WeightUnit) ||
						!within(p.LengthDimension, 10000) || !within(p.WidthDimension, 10000) || !within(p.HeightDimension, 10000) ||
						!within(p.WeightAmount, 100000) {
						t.Fatalf("accepted the parcel %+v", p)
					}
				}
				for _, c := range []string{st.Origin.CountryCode, st.Destination.CountryCode} {
					if !countryCode.MatchString(c) {
						t.Fatalf("accepted the country code %q", c)
					}
				}
				for field, v := range map[string]string{"reference_number": st.ReferenceNumber, "pickup_point_id": st.PickupPoint} {
					if problem := carrier.NameProblem(v); problem != "" {
						t.Fatalf("accepted %s %q: %s", field, v, problem)
					}
				}
				if cod := st.COD; cod != nil && !carrier.IsCashCurrency(cod.Currency) {
					t.Fatalf("accepted cash on delivery in %q", cod.Currency)
				}
				if cod := st.COD; cod != nil && (cod.AmountMinor <= 0 || len(cod.Currency) != 3 ||
					math.Abs(carrier.Money{Minor: cod.AmountMinor, Currency: cod.Currency}.Float()-amount) > math.Pow10(-carrier.CurrencyDigits(cod.Currency))) {
					t.Fatalf("accepted cash on delivery %v as %+v", amount, cod)
				}
			}
		} else {
			apptest.CheckRefusal(t, err)
		}

		var update ports.UpdateRequest
		if err := apptest.DecodeBody(body, &update); err != nil {
			apptest.CheckRefusal(t, err)
			return
		}
		errs := fault.FieldErrors{}
		metadata := httpapi.OptionalObject(update.Metadata, "metadata", errs)
		if !apptest.CheckRefusal(t, httpapi.Refusal(errs, domain.CheckEdit(update.ReferenceNumber, metadata))) {
			return
		}
		if update.ReferenceNumber != nil && utf8.RuneCountInString(*update.ReferenceNumber) > 255 {
			t.Fatalf("update accepted a reference of %d characters", utf8.RuneCountInString(*update.ReferenceNumber))
		}
		if update.ReferenceNumber != nil && carrier.NameProblem(*update.ReferenceNumber) != "" {
			t.Fatalf("update accepted the reference %q", *update.ReferenceNumber)
		}
		if absent := len(update.Metadata) == 0 || string(update.Metadata) == "null"; (metadata == nil) != absent {
			t.Fatalf("metadata %s read as %v", update.Metadata, metadata)
		}
	})
}

func checkShipment(t *testing.T, labelFormat, shippingDate, reference string, parcels int) {
	t.Helper()
	if !slices.Contains([]string{"", "pdf", "zpl", "epl"}, labelFormat) {
		t.Fatalf("accepted the label format %q", labelFormat)
	}
	if d, err := time.Parse(time.DateOnly, shippingDate); err != nil || d.Before(today.Truncate(24*time.Hour)) || d.After(today.AddDate(0, 0, 31)) {
		t.Fatalf("accepted the shipping date %q", shippingDate)
	}
	if utf8.RuneCountInString(reference) > 255 {
		t.Fatalf("accepted a reference of %d characters", utf8.RuneCountInString(reference))
	}
	if parcels < 1 || parcels > carrier.MaxParcelsPerShipment {
		t.Fatalf("accepted %d parcels", parcels)
	}
}

// within reports 0 < v <= limit.
func within(v, limit float64) bool { return v > 0 && v <= limit }

// fuzzEnv starts the app with an active sandbox channel and one shipment
// the carrier created.
func fuzzEnv(f *testing.F) (env *apptest.Env, key, channel, shipment string) {
	env = apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	key = env.NewKey("acme")
	channel = env.ActiveSandboxChannel(key, "Sandbox", nil)
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: shipmentsPath, Key: key, Body: shipmentBody(channel)})
	if res.Status != http.StatusCreated {
		f.Fatalf("create shipment: %d %s", res.Status, res.Body)
	}
	shipment, _ = res.Data(f)["id"].(string)
	return env, key, channel, shipment
}

// FuzzShipmentBodies sends any body to POST /v1/shipments and to PUT and
// PATCH of one shipment of the real app.
func FuzzShipmentBodies(f *testing.F) {
	env, key, channel, shipment := fuzzEnv(f)
	for _, b := range bodySeeds(channel) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) { env.CheckWrites(t, key, shipmentsPath, shipment, body) })
}

// FuzzShipmentQueries sends any query string to the shipment list and to
// the label, and any path id to GET /v1/shipments/{id}.
func FuzzShipmentQueries(f *testing.F) {
	env, key, channel, shipment := fuzzEnv(f)
	for _, q := range []string{
		"", "per_page=2", "status=created", "status=pending", "status=lost", "shipping_channel_id=" + channel, "search=SHOP-",
		"search=ORDER-1001&status=created&page=2", "search=" + strings.Repeat("s", 256), "download=1", "download=true", "download=x",
		"search=%25_%5C", "shipping_channel_id=%00", "search=%ff", "search=\xe9", "page=0&per_page=101",
	} {
		f.Add(q, shipment)
	}
	for _, bad := range []string{"sh_01JD0000000000000000000000", "nope", "", "..", channel, "sh_\xff"} {
		f.Add("", bad)
	}
	f.Fuzz(func(t *testing.T, query, pathID string) {
		for _, req := range []apptest.Request{
			{Method: http.MethodGet, Path: shipmentsPath + "?" + apptest.RawQuery(query), Key: key},
			{Method: http.MethodGet, Path: shipmentsPath + "/" + url.PathEscape(pathID), Key: key},
			{Method: http.MethodGet, Path: shipmentsPath + "/" + url.PathEscape(pathID) + "/label?" + apptest.RawQuery(query), Key: key},
		} {
			apptest.CheckAnswer(t, req.Method+" "+req.Path, env.Send(t, req))
		}
	})
}
