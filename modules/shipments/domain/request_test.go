package domain_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/faulttest"
)

// today is the service clock's now in these tests.
var today = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func parcel() domain.Parcel {
	return domain.Parcel{ParcelType: "package", LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, DimensionUnit: "CM",
		WeightAmount: 1.5, WeightUnit: "KG"}
}

// request is a request that passes every rule.
func request() domain.Request {
	return domain.Request{
		ChannelID: "ch_1", ReferenceNumber: "ORDER-1001",
		Sender:      &domain.Contact{CompanyName: "Acme s.r.o.", EmailAddress: "ship@acme.test", PhoneNumber: "+420111222333"},
		Recipient:   &domain.Contact{FirstName: "Jana", LastName: "Nováková", EmailAddress: "jana@example.test", PhoneNumber: "+420777888999"},
		Origin:      &domain.Address{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Destination: &domain.Address{StreetName: "Dlouhá", HouseNumber: "12", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"},
		Parcels:     []domain.Parcel{parcel()},
	}
}

// sandbox takes what the sandbox carrier takes.
var sandbox = carrier.ProviderInfo{Code: "sandbox", LabelFormats: []string{"pdf", "zpl", "epl"}, SupportsCOD: true, MaxParcels: 20,
	ProductTypes: []carrier.ProductType{{Code: "STANDARD", CODProduct: "STANDARD_COD", SupportsCOD: true}, {Code: "EXPRESS", SupportsCOD: true}}}

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

func parcels(n int) []domain.Parcel {
	out := make([]domain.Parcel, n)
	for i := range out {
		out[i] = parcel()
	}
	return out
}

func services(n, lastLength int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "SMS"
	}
	out[n-1] = strings.Repeat("s", lastLength)
	return out
}

// Every rule of a request on its own: a case that passes and one that
// fails with the path and message the API answers.
func TestRequestRules(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes
	tests := []struct {
		name   string
		change func(r *domain.Request)
		want   map[string][]string // nil: passes
	}{
		{"channel given", func(r *domain.Request) { r.ChannelID = " " }, nil},
		{"channel required", func(r *domain.Request) { r.ChannelID = "" }, one("shipping_channel_id", "is required")},
		{"reference of 255", func(r *domain.Request) { r.ReferenceNumber = long(255) }, nil},
		{"reference of 256", func(r *domain.Request) { r.ReferenceNumber = long(256) }, one("reference_number", "must be at most 255 characters")},
		{"pickup point of 64", func(r *domain.Request) { r.PickupPoint = long(64) }, nil},
		{"pickup point of 65", func(r *domain.Request) { r.PickupPoint = long(65) }, one("pickup_point_id", "must be at most 64 characters")},
		{"reference with a line break", func(r *domain.Request) { r.ReferenceNumber = "ORDER-1\r\nX-Injected: 1" },
			one("reference_number", `must not contain control characters or line breaks (found '\r')`)},
		{"reference with a bidi override", func(r *domain.Request) { r.ReferenceNumber = "ORDER-\u202E1001" },
			one("reference_number", `must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`)},
		{"pickup point with a control character", func(r *domain.Request) { r.PickupPoint = "P\x01OINT" },
			one("pickup_point_id", `must not contain control characters or line breaks (found '\x01')`)},
		{"pickup point with a zero-width space", func(r *domain.Request) { r.PickupPoint = "CZ\u200B123" },
			one("pickup_point_id", `must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u200b')`)},
		{"names, phone and email with invisible characters", func(r *domain.Request) {
			r.Recipient.FirstName, r.Sender.CompanyName, r.Recipient.PhoneNumber = "Ja\u200Dna", "Acme\n", "+420\u2066777"
			r.Sender.EmailAddress = "sh\u202Eip@acme.test"
		}, map[string][]string{
			"recipient_contact.first_name":   {`must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u200d')`},
			"sender_contact.company_name":    {`must not contain control characters or line breaks (found '\n')`},
			"recipient_contact.phone_number": {`must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u2066')`},
			"sender_contact.email_address":   {`must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`}}},
		{"address with line breaks; free text may hold formatting characters", func(r *domain.Request) {
			r.Origin.StreetName, r.Origin.CityName, r.Origin.PostalCode = "Dlouh\u00e1\u200B", "Brno\u2028", "602\u200B00"
		}, map[string][]string{
			"origin_address.city_name":   {`must not contain control characters or line breaks (found '\u2028')`},
			"origin_address.postal_code": {`must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u200b')`}}},
		{"metadata of 8 levels", func(r *domain.Request) { r.Metadata = deep(8) }, nil},
		{"metadata of 1000 levels", func(r *domain.Request) { r.Metadata = deep(1000) }, one("metadata", "must nest at most 8 levels of objects and arrays")},
		{"metadata past 16 KiB", func(r *domain.Request) { r.Metadata = map[string]any{"note": strings.Repeat("n", 16*1024)} },
			one("metadata", "must be at most 16384 bytes as JSON (it is 16395)")},
		{"a service with a tab", func(r *domain.Request) { r.AdditionalServices = []string{"SMS\t"} },
			one("additional_services.0", `must not contain control characters or line breaks (found '\t')`)},

		{"sender required", func(r *domain.Request) { r.Sender = nil }, one("sender_contact", "is required")},
		{"recipient required", func(r *domain.Request) { r.Recipient = nil }, one("recipient_contact", "is required")},
		{"names of 255", func(r *domain.Request) {
			r.Sender.CompanyName, r.Recipient.FirstName, r.Recipient.LastName = long(255), long(255), long(255)
		}, nil},
		{"company name of 256", func(r *domain.Request) { r.Sender.CompanyName = long(256) }, one("sender_contact.company_name", "must be at most 255 characters")},
		{"first name of 256", func(r *domain.Request) { r.Recipient.FirstName = long(256) }, one("recipient_contact.first_name", "must be at most 255 characters")},
		{"last name of 256", func(r *domain.Request) { r.Sender.LastName = long(256) }, one("sender_contact.last_name", "must be at most 255 characters")},
		{"sender a person", func(r *domain.Request) {
			r.Sender.CompanyName, r.Sender.FirstName, r.Sender.LastName = "", "Jan", "Novák"
		}, nil},
		{"sender without a name", func(r *domain.Request) { r.Sender.CompanyName, r.Sender.FirstName = "", "Jan" },
			one("sender_contact.company_name", "is required unless first_name and last_name are given")},
		{"recipient a company", func(r *domain.Request) {
			r.Recipient.FirstName, r.Recipient.LastName, r.Recipient.CompanyName = "", "", "Acme"
		},
			map[string][]string{"recipient_contact.first_name": {"is required"}, "recipient_contact.last_name": {"is required"}}},
		{"email with white space around", func(r *domain.Request) { r.Sender.EmailAddress = " a@b.test\t" }, nil},
		{"email required", func(r *domain.Request) { r.Sender.EmailAddress = " " }, one("sender_contact.email_address", "is required")},
		{"email malformed", func(r *domain.Request) { r.Recipient.EmailAddress = "Jana <jana@example.test>" },
			one("recipient_contact.email_address", "must be a valid email address")},
		{"email of 255", func(r *domain.Request) { r.Sender.EmailAddress = strings.Repeat("a", 248) + "@b.test" }, nil},
		{"email of 256", func(r *domain.Request) { r.Sender.EmailAddress = strings.Repeat("a", 249) + "@b.test" },
			one("sender_contact.email_address", "must be at most 255 characters")},
		{"phone of 50", func(r *domain.Request) { r.Recipient.PhoneNumber = strings.Repeat("1", 50) }, nil},
		{"phone required", func(r *domain.Request) { r.Recipient.PhoneNumber = "" }, one("recipient_contact.phone_number", "is required")},
		{"phone of 51", func(r *domain.Request) { r.Recipient.PhoneNumber = strings.Repeat("1", 51) },
			one("recipient_contact.phone_number", "must be at most 50 characters")},

		{"origin required", func(r *domain.Request) { r.Origin = nil }, one("origin_address", "is required")},
		{"destination required", func(r *domain.Request) { r.Destination = nil }, one("destination_address", "is required")},
		{"address at its bounds", func(r *domain.Request) {
			*r.Origin = domain.Address{StreetName: long(255), HouseNumber: long(50), ApartmentNumber: long(50), CityName: long(255),
				PostalCode: " " + strings.Repeat("1", 20) + " ", CountryCode: " cz "}
		}, nil},
		{"address empty", func(r *domain.Request) { *r.Destination = domain.Address{PostalCode: "  "} }, map[string][]string{
			"destination_address.street_name": {"is required"}, "destination_address.house_number": {"is required"},
			"destination_address.city_name": {"is required"}, "destination_address.postal_code": {"is required"},
			"destination_address.country_code": {"is required"}}},
		{"address past its bounds", func(r *domain.Request) {
			*r.Origin = domain.Address{StreetName: long(256), HouseNumber: long(51), ApartmentNumber: long(51), CityName: long(256),
				PostalCode: strings.Repeat("1", 21), CountryCode: "CZE"}
		}, map[string][]string{
			"origin_address.street_name": {"must be at most 255 characters"}, "origin_address.house_number": {"must be at most 50 characters"},
			"origin_address.apartment_number": {"must be at most 50 characters"}, "origin_address.city_name": {"must be at most 255 characters"},
			"origin_address.postal_code": {"must be at most 20 characters"}, "origin_address.country_code": {"must be an ISO 3166-1 alpha-2 country code"}}},
		{"unknown country", func(r *domain.Request) { r.Destination.CountryCode = "XX" },
			one("destination_address.country_code", "must be an ISO 3166-1 alpha-2 country code")},

		{"20 services of 100", func(r *domain.Request) { r.AdditionalServices = services(20, 100) }, nil},
		{"21 services", func(r *domain.Request) { r.AdditionalServices = services(21, 101) }, one("additional_services", "must be at most 20")},
		{"a service of 101", func(r *domain.Request) { r.AdditionalServices = services(3, 101) }, one("additional_services.2", "must be at most 100 characters")},

		{"label format in capitals", func(r *domain.Request) { r.LabelFormat = "EPL" }, nil},
		{"label format unknown", func(r *domain.Request) { r.LabelFormat = "png" }, one("label_format", "must be one of: pdf, zpl, epl")},
		{"label format with white space", func(r *domain.Request) { r.LabelFormat = "pdf " }, one("label_format", "must be one of: pdf, zpl, epl")},

		{"parcels required", func(r *domain.Request) { r.Parcels = nil }, one("parcels", "is required (an array of parcels, or one object as parcel)")},
		{"no parcels", func(r *domain.Request) { r.Parcels = []domain.Parcel{} }, one("parcels", "must have at least 1 item")},
		{"the most parcels", func(r *domain.Request) { r.Parcels = parcels(carrier.MaxParcelsPerShipment) }, nil},
		{"more parcels than any provider takes, bad ones among them", func(r *domain.Request) {
			r.Parcels = append(parcels(carrier.MaxParcelsPerShipment), domain.Parcel{})
		}, one("parcels", "must have at most 1000 items, the most any provider takes per shipment (see max_parcels_per_shipment in GET /v1/providers)")},
		{"parcel defaults and loose case", func(r *domain.Request) {
			r.Parcels = []domain.Parcel{{LengthDimension: 10000, WidthDimension: 1, HeightDimension: 1, WeightAmount: 100000},
				{ParcelType: "Envelope", LengthDimension: 1, WidthDimension: 1, HeightDimension: 1, DimensionUnit: "in", WeightAmount: 1, WeightUnit: "lb"}}
		}, nil},
		{"a parcel of nothing", func(r *domain.Request) { r.Parcels = append(parcels(1), domain.Parcel{}) }, map[string][]string{
			"parcels.1.length_dimension": {"must be greater than 0"}, "parcels.1.width_dimension": {"must be greater than 0"},
			"parcels.1.height_dimension": {"must be greater than 0"}, "parcels.1.weight_amount": {"must be greater than 0"}}},
		{"a parcel past its bounds", func(r *domain.Request) {
			r.Parcels = []domain.Parcel{{ParcelType: "crate", LengthDimension: 10000.5, WidthDimension: -1, HeightDimension: 10001,
				DimensionUnit: "FT", WeightAmount: 100000.5, WeightUnit: "stone"}}
		}, map[string][]string{
			"parcels.0.parcel_type": {"must be one of: package, envelope, pallet"}, "parcels.0.length_dimension": {"fails the lte rule"},
			"parcels.0.width_dimension": {"must be greater than 0"}, "parcels.0.height_dimension": {"fails the lte rule"},
			"parcels.0.dimension_unit": {"must be one of: CM, MM, IN"}, "parcels.0.weight_amount": {"fails the lte rule"},
			"parcels.0.weight_unit": {"must be one of: KG, G, LB"}}},

		{"a parcel at the least measures", func(r *domain.Request) {
			r.Parcels = []domain.Parcel{{LengthDimension: 0.1, WidthDimension: 0.1, HeightDimension: 0.1, WeightAmount: 0.001},
				{LengthDimension: 1, WidthDimension: 1, HeightDimension: 1, DimensionUnit: "MM", WeightAmount: 1, WeightUnit: "G"},
				{LengthDimension: 0.04, WidthDimension: 0.04, HeightDimension: 0.04, DimensionUnit: "IN", WeightAmount: 0.0025, WeightUnit: "LB"}}
		}, nil},
		{"a parcel below the least measures", func(r *domain.Request) {
			r.Parcels = []domain.Parcel{{LengthDimension: 0.09, WidthDimension: 5e-324, HeightDimension: 1, WeightAmount: 5e-324},
				{LengthDimension: 0.9, WidthDimension: 1, HeightDimension: 1, DimensionUnit: "MM", WeightAmount: 0.5, WeightUnit: "G"}}
		}, map[string][]string{
			"parcels.0.length_dimension": {"must be at least 0.1 CM, the least a carrier measures"},
			"parcels.0.width_dimension":  {"must be at least 0.1 CM, the least a carrier measures"},
			"parcels.0.weight_amount":    {"must be at least 0.001 KG, the least a carrier measures"},
			"parcels.1.length_dimension": {"must be at least 1 MM, the least a carrier measures"},
			"parcels.1.weight_amount":    {"must be at least 1 G, the least a carrier measures"}}},

		{"cash on delivery", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(125.5), ptr(" czk ") }, nil},
		{"cash on delivery in CFA francs", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(1000.0), ptr("XOF") }, nil},
		{"cash on delivery in no currency", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.0), ptr("XXX") },
			one("cash_on_delivery_currency", "must be a currency a carrier can collect, not XXX (ISO 4217's codes for no currency, testing, metals, units of account and funds are refused)")},
		{"cash on delivery in gold", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(1.0), ptr("xau") },
			one("cash_on_delivery_currency", "must be a currency a carrier can collect, not XAU (ISO 4217's codes for no currency, testing, metals, units of account and funds are refused)")},
		{"an empty currency alone is none", func(r *domain.Request) { r.CODCurrency = ptr(" ") }, nil},
		{"amount without currency", func(r *domain.Request) { r.CODAmount = ptr(10.0) },
			one("cash_on_delivery_currency", "is required with cash_on_delivery_amount")},
		{"amount with an empty currency", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.0), ptr("") },
			one("cash_on_delivery_currency", "is required with cash_on_delivery_amount")},
		{"currency without amount", func(r *domain.Request) { r.CODCurrency = ptr("EUR") },
			one("cash_on_delivery_amount", "is required with cash_on_delivery_currency")},
		{"unknown currency", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(0.0), ptr("XYZ") },
			one("cash_on_delivery_currency", "must be an ISO 4217 currency code")},
		{"amount 0", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(0.0), ptr("EUR") },
			one("cash_on_delivery_amount", "must be greater than 0")},
		{"amount below 0", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(-1.0), ptr("EUR") },
			one("cash_on_delivery_amount", "must be greater than 0")},
		{"three decimals of a dinar", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.123), ptr("KWD") }, nil},
		{"three decimals of a euro", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.123), ptr("EUR") },
			one("cash_on_delivery_amount", "must have at most 2 decimal places for EUR")},
		{"decimals of a yen", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.5), ptr("JPY") },
			one("cash_on_delivery_amount", "must have at most 0 decimal places for JPY")},
		{"an amount too large", func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(1e17), ptr("CZK") },
			one("cash_on_delivery_amount", "is too large")},

		{"shipping today", func(r *domain.Request) { r.ShippingDate = "2026-11-21" }, nil},
		{"shipping 30 days ahead", func(r *domain.Request) { r.ShippingDate = "2026-12-21" }, nil},
		{"shipping 31 days ahead", func(r *domain.Request) { r.ShippingDate = "2026-12-22" }, one("shipping_date", "must be at most 30 days after today")},
		{"shipping in 9999", func(r *domain.Request) { r.ShippingDate = "9999-12-31" }, one("shipping_date", "must be at most 30 days after today")},
		{"shipping yesterday", func(r *domain.Request) { r.ShippingDate = "2026-11-20" }, one("shipping_date", "must be today or later")},
		{"shipping date malformed", func(r *domain.Request) { r.ShippingDate = "tomorrow" }, one("shipping_date", "must be a date like 2026-11-21")},
		{"shipping date of no day", func(r *domain.Request) { r.ShippingDate = "2031-02-30" }, one("shipping_date", "must be a date like 2026-11-21")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request()
			tt.change(&r)
			if got := fields(t, r.Check(today)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Check = %v, want %v", got, tt.want)
			}
			// New refuses the same, before it asks anything of the provider.
			_, err := domain.New("sh_1", "acc_1", r, carrier.ProviderInfo{}, nil, today)
			if got := fields(t, err); tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("New = %v, want %v", got, tt.want)
			}
		})
	}
}

// Every problem is named at once.
func TestRequestNamesEveryProblem(t *testing.T) {
	r := domain.Request{LabelFormat: "png", Recipient: &domain.Contact{EmailAddress: "x"}, Parcels: []domain.Parcel{}}
	want := map[string][]string{
		"shipping_channel_id": {"is required"}, "label_format": {"must be one of: pdf, zpl, epl"},
		"sender_contact": {"is required"}, "origin_address": {"is required"}, "destination_address": {"is required"},
		"recipient_contact.email_address": {"must be a valid email address"}, "recipient_contact.phone_number": {"is required"},
		"recipient_contact.first_name": {"is required"}, "recipient_contact.last_name": {"is required"},
		"parcels": {"must have at least 1 item"},
	}
	if got := fields(t, r.Check(today)); !reflect.DeepEqual(got, want) {
		t.Errorf("Check = %v,\nwant %v", got, want)
	}
}

// What a client writes loosely is kept exact, and what it leaves out gets
// its default.
func TestNewKeepsTheRequestExact(t *testing.T) {
	r := request()
	r.Sender.EmailAddress = " ship@acme.test "
	r.Destination.CountryCode, r.Destination.PostalCode = " cz", " 602 00 "
	r.Parcels = []domain.Parcel{{LengthDimension: 1, WidthDimension: 1, HeightDimension: 1, WeightAmount: 1, DimensionUnit: "mm"}}
	r.CODAmount, r.CODCurrency = ptr(125.5), ptr("czk")
	r.LabelFormat = "ZPL"
	sh, err := domain.New("sh_1", "acc_1", r, sandbox, nil, today)
	if err != nil {
		t.Fatal(err)
	}
	st := sh.Stored()
	p := st.Parcels[0]
	if st.Sender.EmailAddress != "ship@acme.test" || st.Destination.CountryCode != "CZ" || st.Destination.PostalCode != "602 00" ||
		p.ParcelType != "package" || p.DimensionUnit != "MM" || p.WeightUnit != "KG" || st.LabelFormat != "zpl" ||
		st.ShippingDate != "2026-11-21" || !st.EnableTracking || st.Metadata == nil || st.AdditionalServices == nil ||
		st.COD == nil || st.COD.AmountMinor != 12550 || st.COD.Currency != "CZK" {
		t.Errorf("state %+v", st)
	}
	if st.ID != "sh_1" || st.AccountID != "acc_1" || st.Provider != "sandbox" || st.Status != domain.StatusPending || st.IsSuccessful != nil ||
		st.Version != 1 || !st.CreatedAt.Equal(today) || st.ProductType != "STANDARD_COD" {
		t.Errorf("a new shipment is %+v", st)
	}
	r.EnableTracking = ptr(false)
	if sh, _ := domain.New("sh_2", "acc_1", r, sandbox, nil, today); sh.Stored().EnableTracking {
		t.Error("enable_tracking false was not kept")
	}
}

// What the channel's carrier takes, checked once the channel is known.
func TestNewChecksWhatTheProviderTakes(t *testing.T) {
	ppl := carrier.ProviderInfo{Code: "ppl", LabelFormats: []string{"pdf", "zpl"}, SupportsCOD: true, MaxParcels: 2,
		Settings: []carrier.Setting{{Key: "productType", Default: "BUSS"}},
		ProductTypes: []carrier.ProductType{{Code: "PRIV", SupportsCOD: true}, {Code: "BUSS", CODProduct: "BUSD", SupportsCOD: true}, {Code: "ONE", MaxParcels: 1},
			{Code: "SMAR", CODProduct: "SMAD", SupportsCOD: true, PickupPoint: carrier.PickupPointRequired}, {Code: "MAYBE", PickupPoint: carrier.PickupPointOptional}}}
	noCOD := carrier.ProviderInfo{Code: "gls", LabelFormats: []string{"pdf"}, MaxParcels: 5}
	weighed := carrier.ProviderInfo{Code: "dpd", LabelFormats: []string{"pdf"}, MaxParcels: 5, MaxParcelWeightKG: 31.5,
		ProductTypes: []carrier.ProductType{{Code: "CLASSIC"}, {Code: "LIGHT", MaxParcelWeightKG: 10}}}
	heavy := func(kg ...float64) func(r *domain.Request) {
		return func(r *domain.Request) {
			r.Parcels = parcels(len(kg))
			for i, w := range kg {
				r.Parcels[i].WeightAmount, r.Parcels[i].WeightUnit = w, "KG"
			}
		}
	}
	tests := []struct {
		name     string
		provider carrier.ProviderInfo
		settings carrier.Settings
		change   func(r *domain.Request)
		want     map[string][]string // nil: passes
		format   string              // and has this label format
		product  string              // and this product
	}{
		{"the request's format", ppl, carrier.Settings{"defaultLabelFormat": "pdf"}, func(r *domain.Request) { r.LabelFormat = "ZPL" }, nil, "zpl", "BUSS"},
		{"the channel's format", ppl, carrier.Settings{"defaultLabelFormat": "zpl"}, func(*domain.Request) {}, nil, "zpl", "BUSS"},
		{"no format: pdf", ppl, nil, func(*domain.Request) {}, nil, "pdf", "BUSS"},
		{"a format the provider does not print", ppl, nil, func(r *domain.Request) { r.LabelFormat = "epl" },
			one("label_format", "provider ppl prints only: pdf, zpl"), "", ""},
		{"the channel's product", ppl, carrier.Settings{"productType": "PRIV"}, func(*domain.Request) {}, nil, "pdf", "PRIV"},
		{"no product set: the first", noCOD, nil, func(*domain.Request) {}, nil, "pdf", ""},
		{"the provider's most parcels", ppl, nil, func(r *domain.Request) { r.Parcels = parcels(2) }, nil, "pdf", "BUSS"},
		{"more parcels than the provider takes", ppl, nil, func(r *domain.Request) { r.Parcels = parcels(3) },
			one("parcels", "provider ppl takes at most 2 parcels per shipment; this shipment has 3"), "", ""},
		{"more parcels than the product takes", ppl, carrier.Settings{"productType": "ONE"}, func(r *domain.Request) { r.Parcels = parcels(2) },
			one("parcels", "product ONE of provider ppl takes at most 1 parcel per shipment; this shipment has 2"), "", ""},
		{"cash on delivery switches the product", ppl, nil, func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.0), ptr("CZK") }, nil, "pdf", "BUSD"},
		{"cash on delivery on the same product", ppl, carrier.Settings{"productType": "PRIV"},
			func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.0), ptr("CZK") }, nil, "pdf", "PRIV"},
		{"cash on delivery the product does not carry", ppl, carrier.Settings{"productType": "ONE"},
			func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.0), ptr("CZK") },
			one("cash_on_delivery_amount", "product ONE of provider ppl does not support cash on delivery"), "", ""},
		{"cash on delivery the provider does not carry", noCOD, nil, func(r *domain.Request) { r.CODAmount, r.CODCurrency = ptr(10.0), ptr("EUR") },
			one("cash_on_delivery_amount", "provider gls does not support cash on delivery"), "", ""},
		{"a pickup point where the product needs one", ppl, carrier.Settings{"productType": "SMAR"}, func(r *domain.Request) { r.PickupPoint = " KM12345 " }, nil, "pdf", "SMAR"},
		{"the channel's pickup point", ppl, carrier.Settings{"productType": "SMAR", "defaultPickupPoint": "KM1"}, func(*domain.Request) {}, nil, "pdf", "SMAR"},
		{"a pickup point where the product may take one", ppl, carrier.Settings{"productType": "MAYBE"}, func(r *domain.Request) { r.PickupPoint = "P1" }, nil, "pdf", "MAYBE"},
		{"no pickup point where the product may take one", ppl, carrier.Settings{"productType": "MAYBE"}, func(*domain.Request) {}, nil, "pdf", "MAYBE"},
		{"cash on delivery to a pickup point", ppl, carrier.Settings{"productType": "SMAR"},
			func(r *domain.Request) { r.PickupPoint, r.CODAmount, r.CODCurrency = "KM1", ptr(10.0), ptr("CZK") }, nil, "pdf", "SMAD"},
		{"no pickup point where the product needs one", ppl, carrier.Settings{"productType": "SMAR"}, func(*domain.Request) {},
			one("pickup_point_id", "product SMAR of provider ppl delivers only to a pickup point: name the carrier's point id"), "", ""},
		{"a pickup point where the product takes none", ppl, nil, func(r *domain.Request) { r.PickupPoint = "KM1" },
			one("pickup_point_id", "product BUSS of provider ppl delivers to the address and takes no pickup point"), "", ""},
		{"parcels as heavy as the provider takes", weighed, nil, heavy(31.5, 2), nil, "pdf", "CLASSIC"},
		{"a parcel heavier than the provider takes", weighed, nil, heavy(2, 31.6),
			one("parcels.1.weight_amount", "provider dpd takes parcels of at most 31.5 kg; this one weighs 31.6 kg"), "", ""},
		{"a parcel heavier than the product takes", weighed, carrier.Settings{"productType": "LIGHT"}, heavy(10.5),
			one("parcels.0.weight_amount", "product LIGHT of provider dpd takes parcels of at most 10 kg; this one weighs 10.5 kg"), "", ""},
		{"pounds weighed in kilograms", weighed, nil, func(r *domain.Request) { r.Parcels[0].WeightAmount, r.Parcels[0].WeightUnit = 70, "LB" },
			one("parcels.0.weight_amount", "provider dpd takes parcels of at most 31.5 kg; this one weighs 31.751 kg"), "", ""},
		{"no weight limit known", noCOD, nil, heavy(500), nil, "pdf", ""},
		{"every problem at once", noCOD, nil, func(r *domain.Request) {
			r.LabelFormat, r.Parcels, r.CODAmount, r.CODCurrency = "zpl", parcels(6), ptr(1.0), ptr("EUR")
		}, map[string][]string{"label_format": {"provider gls prints only: pdf"}, "parcels": {"provider gls takes at most 5 parcels per shipment; this shipment has 6"},
			"cash_on_delivery_amount": {"provider gls does not support cash on delivery"}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := request()
			tt.change(&r)
			sh, err := domain.New("sh_1", "acc_1", r, tt.provider, tt.settings, today)
			if got := fields(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("New = %v, want %v", got, tt.want)
			}
			if err == nil && sh.Stored().PickupPoint != strings.TrimSpace(r.PickupPoint) {
				t.Errorf("pickup point %q, want %q", sh.Stored().PickupPoint, strings.TrimSpace(r.PickupPoint))
			}
			if err == nil && (sh.Stored().LabelFormat != tt.format || sh.Stored().ProductType != tt.product) {
				t.Errorf("format %q product %q, want %q %q", sh.Stored().LabelFormat, sh.Stored().ProductType, tt.format, tt.product)
			}
		})
	}
}

// An edit keeps the rule of the reference number; a refused edit changes
// nothing.
func TestEditKeepsTheReferenceRule(t *testing.T) {
	sh := pending(t, 1)
	later := today.Add(time.Hour)
	changed, err := sh.Edit(ptr(strings.Repeat("é", 255)), nil, nil, later)
	if err != nil || !changed || sh.Stored().Version != 2 {
		t.Fatalf("edit to 255 characters: %v %v", changed, err)
	}
	changed, err = sh.Edit(ptr(strings.Repeat("é", 256)), map[string]any{"a": 1.0}, ptr(false), later)
	if got := fields(t, err); changed || !reflect.DeepEqual(got, one("reference_number", "must be at most 255 characters")) {
		t.Fatalf("edit to 256 characters: %v %v", changed, got)
	}
	if st := sh.Stored(); st.Version != 2 || len(st.Metadata) != 0 || !st.EnableTracking {
		t.Errorf("a refused edit changed %+v", st)
	}
	if err := domain.CheckEdit(ptr("A\nB"), nil); !reflect.DeepEqual(fields(t, err), one("reference_number", `must not contain control characters or line breaks (found '\n')`)) {
		t.Errorf("CheckEdit of a line break = %v", err)
	}
	if err := domain.CheckEdit(ptr(strings.Repeat("r", 256)), nil); !reflect.DeepEqual(fields(t, err), one("reference_number", "must be at most 255 characters")) {
		t.Errorf("CheckEdit = %v", err)
	}
	if err := domain.CheckEdit(nil, deep(9)); !reflect.DeepEqual(fields(t, err), one("metadata", "must nest at most 8 levels of objects and arrays")) {
		t.Errorf("CheckEdit of deep metadata = %v", err)
	}
	if _, err := sh.Edit(nil, deep(9), nil, later); !reflect.DeepEqual(fields(t, err), one("metadata", "must nest at most 8 levels of objects and arrays")) {
		t.Errorf("Edit of deep metadata = %v", err)
	}
	if err := domain.CheckEdit(nil, deep(8)); err != nil {
		t.Errorf("CheckEdit of no reference = %v", err)
	}
}

// deep is metadata nesting n objects.
func deep(n int) map[string]any {
	m := map[string]any{"leaf": "x"}
	for range n - 1 {
		m = map[string]any{"k": m}
	}
	return m
}

// pending is a new shipment of n parcels on the sandbox, with cash on
// delivery.
func pending(t *testing.T, n int) *domain.Shipment {
	t.Helper()
	r := request()
	r.Parcels = parcels(n)
	r.CODAmount, r.CODCurrency = ptr(1.0), ptr("CZK")
	sh, err := domain.New("sh_1", "acc_1", r, sandbox, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}
