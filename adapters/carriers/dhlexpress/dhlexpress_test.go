package dhlexpress

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/platform/carrier"
)

func parcel(kg float64) carrier.Parcel {
	return carrier.Parcel{Type: "package", Weight: kg, WeightUnit: "KG", Length: 30, Width: 20, Height: 10, DimensionUnit: "CM"}
}

func request(parcels ...carrier.Parcel) carrier.ShipmentRequest {
	return carrier.ShipmentRequest{
		Reference:    "ORDER-100234",
		ProductType:  "P",
		LabelFormat:  "pdf",
		ShippingDate: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC),
		Sender:       carrier.Contact{CompanyName: "Obchod s.r.o.", FirstName: "Jan", LastName: "Novák", Email: "jan@obchod.cz", Phone: "+420 601 123 456"},
		Recipient:    carrier.Contact{FirstName: "Maria", LastName: "Musterfrau", Email: "maria@example.de", Phone: "+49 987654321"},
		Origin:       carrier.Address{StreetName: "Vinohradská", HouseNumber: "12", CityName: "Praha", PostalCode: "12000", CountryCode: "CZ"},
		Destination:  carrier.Address{StreetName: "Kurt-Schumacher-Str.", HouseNumber: "20", ApartmentNumber: "3", CityName: "Bonn", PostalCode: "53113", CountryCode: "DE"},
		Parcels:      parcels,
	}
}

func rejectionsOf(t *testing.T, err error) []*carrier.Rejection {
	t.Helper()
	refusals, ok := carrier.RefusalsOf(err)
	if !ok {
		t.Fatalf("error %v (%T) is no rejection", err, err)
	}
	return refusals
}

func fields(rs []*carrier.Rejection) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Field)
	}
	return out
}

func mustFail(_ carrier.CreatedShipment, err error) error { return err }

// barcodes reads merged labels back, PDF pages one parcel each.
func barcodes(t *testing.T, format string, ls []carrier.Label) []string {
	t.Helper()
	merged := labelcheck.Merge(t, format, ls)
	if format != "pdf" {
		return labelcheck.Barcodes(t, format, merged)
	}
	var out []string
	for i, page := range labelcheck.PDFBarcodes(t, merged) {
		if len(page) != 1 {
			t.Fatalf("page %d has barcodes %v, want one", i+1, page)
		}
		out = append(out, page[0])
	}
	return out
}

func TestCreateLabelsTrackCancel(t *testing.T) {
	for _, format := range []string{"pdf", "zpl", "epl"} {
		t.Run(format, func(t *testing.T) {
			f := newFake(t, sandboxBase)
			c := f.carrier()
			s := testSettings()
			ctx := context.Background()
			req := request(parcel(2.5), parcel(0.4), carrier.Parcel{Weight: 700, WeightUnit: "G", Length: 350, Width: 250, Height: 5, DimensionUnit: "MM"})
			req.LabelFormat = format

			out, err := c.CreateShipment(ctx, s, req)
			if err != nil {
				t.Fatalf("CreateShipment: %v", err)
			}
			if len(out.TrackingNumbers) != 3 || out.ProviderShipmentID != "5374534601" || !strings.HasPrefix(out.TrackingNumbers[0], "JD") {
				t.Fatalf("created %+v", out)
			}
			if out.Price == nil || *out.Price != (carrier.Money{Minor: 4837, Currency: "EUR"}) {
				t.Errorf("price %v, want DHL's billing-currency 48.37 EUR", out.Price)
			}
			b := f.bodies[0]
			if b.ProductCode != "P" || b.Accounts[0] != (account{TypeCode: "shipper", Number: testAccount}) || b.Content.IsCustomsDeclarable ||
				b.Content.Description != DefaultDescription || b.Content.Incoterm != "DAP" || b.PlannedShippingDateAndTime != "2026-11-25T12:00:00 GMT+00:00" ||
				b.OutputImageProperties.EncodingFormat != format || b.CustomerReferences[0] != (reference{Value: "ORDER-100234", TypeCode: "CU"}) || b.OnDemandDelivery != nil {
				t.Errorf("request %+v", b)
			}
			shipper, receiver := b.CustomerDetails.ShipperDetails, b.CustomerDetails.ReceiverDetails
			if shipper.ContactInformation != (contact{Email: "jan@obchod.cz", Phone: "+420 601 123 456", CompanyName: "Obchod s.r.o.", FullName: "Jan Novák"}) ||
				receiver.ContactInformation.CompanyName != "Maria Musterfrau" || receiver.PostalAddress != (postalAddress{PostalCode: "53113", CityName: "Bonn", CountryCode: "DE", AddressLine1: "Kurt-Schumacher-Str. 20/3"}) {
				t.Errorf("parties %+v / %+v", shipper, receiver)
			}
			want := []piece{
				{Weight: 2.5, Dimensions: dimensions{30, 20, 10}, ReferenceNumber: 1},
				{Weight: 0.4, Dimensions: dimensions{30, 20, 10}, ReferenceNumber: 2},
				{Weight: 0.7, Dimensions: dimensions{35, 25, 1}, ReferenceNumber: 3},
			}
			if !reflect.DeepEqual(b.Content.Packages, want) {
				t.Errorf("packages %+v, want %+v", b.Content.Packages, want)
			}

			// The labels came with the booking, one per parcel in parcel
			// order although DHL listed them the other way round.
			if got := barcodes(t, format, out.Labels); !reflect.DeepEqual(got, out.TrackingNumbers) {
				t.Errorf("labels decode to %v, want %v", got, out.TrackingNumbers)
			}
			ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}
			if _, err := c.Labels(ctx, s, ref, format); !strings.Contains(rejectionsOf(t, err)[0].Message, "only with the booking") {
				t.Errorf("Labels: %v", err)
			}

			// Tracking of the second parcel's piece: its events and the
			// shipment's, each once.
			f.setTracking(out.ProviderShipmentID, "DUMMY_PU", "PU", "AF", "WC", "OK")
			tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[1]})
			if err != nil || !tr.Recognized {
				t.Fatalf("Track = %+v, %v", tr, err)
			}
			slices.SortFunc(tr.Events, func(a, b carrier.TrackingEvent) int { return a.At.Compare(b.At) })
			var statuses []carrier.TrackingStatus
			for _, e := range tr.Events {
				statuses = append(statuses, e.Status)
			}
			if want := []carrier.TrackingStatus{"waiting_for_shipment", "in_transit", "in_transit", "out_for_delivery", "delivered"}; !reflect.DeepEqual(statuses, want) {
				t.Errorf("statuses %v, want %v", statuses, want)
			}
			last := tr.Events[4]
			if last.Code != "OK" || last.Description != "event OK" || last.Location != "SYDNEY-AU" || !last.At.Equal(time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)) {
				t.Errorf("last event %+v", last)
			}
			if f.count("GET /tracking?") != 1 {
				t.Errorf("a piece is tracked through GET /tracking: %v", f.calls)
			}

			// Cancel: MyDHL API cancels no shipments.
			rs := rejectionsOf(t, c.CancelShipment(ctx, s, ref))
			if len(rs) != 1 || !strings.Contains(rs[0].Message, "not charged") || !strings.Contains(rs[0].Message, out.ProviderShipmentID) {
				t.Errorf("cancel: %v", rs)
			}
			if n := f.count("POST"); n != 1 {
				t.Errorf("%d POSTs", n)
			}
		})
	}
}

func TestLabelsLinkedUnlinkedOrInOneFile(t *testing.T) {
	for _, mode := range []string{"unlinked", "single"} {
		t.Run(mode, func(t *testing.T) {
			f := newFake(t, sandboxBase)
			f.labelMode = mode
			out, err := f.carrier().CreateShipment(context.Background(), testSettings(), request(parcel(1), parcel(2)))
			if err != nil {
				t.Fatal(err)
			}
			wantFiles := map[string]int{"unlinked": 2, "single": 1}[mode]
			if len(out.Labels) != wantFiles {
				t.Errorf("%d label files, want %d", len(out.Labels), wantFiles)
			}
			if got := barcodes(t, "pdf", out.Labels); !reflect.DeepEqual(got, out.TrackingNumbers) {
				t.Errorf("labels decode to %v, want %v", got, out.TrackingNumbers)
			}
		})
	}
}

func TestNoPriceIsMadeUp(t *testing.T) {
	f := newFake(t, sandboxBase)
	f.charges = false
	out, err := f.carrier().CreateShipment(context.Background(), testSettings(), request(parcel(1)))
	if err != nil || out.Price != nil {
		t.Errorf("price %v, %v; want none", out.Price, err)
	}
}

func TestRefusedBeforeAnyCall(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, sandboxBase)
	c := f.carrier()
	for _, tc := range []struct {
		name   string
		change func(*carrier.ShipmentRequest, carrier.Settings)
		want   []string
	}{
		{"cash on delivery", func(r *carrier.ShipmentRequest, _ carrier.Settings) {
			r.COD = &carrier.Money{Minor: 1000, Currency: "EUR"}
		}, []string{"cash_on_delivery_amount"}},
		{"label format", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.LabelFormat = "png" }, []string{"label_format"}},
		{"unknown product", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.ProductType = "Z" }, []string{"product_type"}},
		{"domestic product abroad", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.ProductType = "N" }, []string{"product_type"}},
		{"goods leaving the EU", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.Destination.CountryCode = "US" }, []string{"destination_address.country_code"}},
		{"goods from Switzerland", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.Origin.CountryCode = "CH" }, []string{"destination_address.country_code"}},
		{"phones", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.Sender.Phone, r.Recipient.Phone = "", " " },
			[]string{"sender_contact.phone_number", "recipient_contact.phone_number"}},
		{"no name", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.Recipient = carrier.Contact{Phone: "1"} }, []string{"recipient_contact.last_name"}},
		{"long street, no city", func(r *carrier.ShipmentRequest, _ carrier.Settings) {
			r.Destination.StreetName, r.Destination.CityName = strings.Repeat("Lange Straße ", 4), ""
		}, []string{"destination_address.street_name", "destination_address.city_name"}},
		{"service point id", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.PickupPoint = "TOO-LONG-ID" }, []string{"pickup_point_id"}},
		{"no parcels", func(r *carrier.ShipmentRequest, _ carrier.Settings) { r.Parcels = nil }, []string{"parcels"}},
		{"no account", func(_ *carrier.ShipmentRequest, s carrier.Settings) { delete(s, settingAccount) }, []string{settingAccount}},
		{"long description", func(_ *carrier.ShipmentRequest, s carrier.Settings) { s[settingDescription] = strings.Repeat("x", 71) }, []string{settingDescription}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, s := request(parcel(1)), testSettings()
			tc.change(&req, s)
			if got := fields(rejectionsOf(t, mustFail(c.CreateShipment(ctx, s, req)))); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fields %v, want %v", got, tc.want)
			}
		})
	}
	if n := f.count(""); n != 0 {
		t.Errorf("%d calls reached DHL", n)
	}
}

// Documents cross customs borders as non-dutiable; domestic products book
// inside one country.
func TestCustomsFreeShipmentsAreBooked(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	ctx := context.Background()
	docs := request(carrier.Parcel{Type: "envelope", Weight: 0.2, WeightUnit: "KG", Length: 35, Width: 27.5, Height: 1, DimensionUnit: "CM"})
	docs.ProductType, docs.Destination = "D", carrier.Address{StreetName: "116 Marine Dr", CityName: "Graford", PostalCode: "76449", CountryCode: "US"}
	if _, err := c.CreateShipment(ctx, testSettings(), docs); err != nil {
		t.Fatalf("documents to the US: %v", err)
	}
	domestic := request(parcel(3))
	domestic.ProductType, domestic.Destination.CountryCode, domestic.Destination.PostalCode = "N", "CZ", "60200"
	if _, err := c.CreateShipment(ctx, testSettings(), domestic); err != nil {
		t.Fatalf("domestic: %v", err)
	}
	if f.bodies[0].Content.IsCustomsDeclarable || f.bodies[0].Content.Packages[0].Dimensions != (dimensions{35, 28, 1}) || f.bodies[1].ProductCode != "N" {
		t.Errorf("bodies %+v", f.bodies)
	}
}

func TestServicePoint(t *testing.T) {
	f := newFake(t, sandboxBase)
	c := f.carrier()
	req := request(parcel(1))
	req.PickupPoint = " PRG123 "
	if _, err := c.CreateShipment(context.Background(), testSettings(), req); err != nil {
		t.Fatal(err)
	}
	s := testSettings()
	s[carrier.DefaultPickupPointSetting] = "BRQ001"
	if _, err := c.CreateShipment(context.Background(), s, request(parcel(1))); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"PRG123", "BRQ001"} {
		if got := f.bodies[i].OnDemandDelivery; got == nil || *got != (onDemandDelivery{DeliveryOption: "servicepoint", ServicePointID: want}) {
			t.Errorf("booking %d: onDemandDelivery %+v, want point %s", i, got, want)
		}
	}
	f.refuse = func(shipmentRequest) (int, problem) {
		return 400, problem{Title: "Bad request", Message: "Bad request", Detail: "7213: The service point #/onDemandDelivery/servicePointId 'XXX999' is not valid."}
	}
	req.PickupPoint = "XXX999"
	rs := rejectionsOf(t, mustFail(c.CreateShipment(context.Background(), testSettings(), req)))
	if len(rs) != 1 || rs[0].Field != carrier.PickupPointField || !strings.Contains(rs[0].Message, "is not valid") {
		t.Errorf("refused point: %v", rs)
	}
}

func TestDHLRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("several problems", func(t *testing.T) {
		f := newFake(t, sandboxBase)
		f.refuse = func(shipmentRequest) (int, problem) {
			ex := f.namedExample("validateDataOnlyShipmentResponse") // DHL's own example of several problems
			p := problem{Instance: ex["instance"].(string), Title: ex["title"].(string), Detail: ex["detail"].(string), Message: ex["message"].(string), Status: "400"}
			p.AdditionalDetails = []string{
				"7127: The receiverDetails/postalAddress/postalCode value provided is invalid.",
				"7041: The weight #/content/packages/1/weight exceeds the maximum for the product.",
				"#/customerDetails/shipperDetails: required key [phone] not found",
				"4001: The product is not available between this origin and destination.",
			}
			return 400, p
		}
		rs := rejectionsOf(t, mustFail(f.carrier().CreateShipment(ctx, testSettings(), request(parcel(1), parcel(300)))))
		want := []string{"destination_address.postal_code", "parcels.1.weight_amount", "sender_contact.phone_number", ""}
		if !reflect.DeepEqual(fields(rs), want) || !strings.Contains(rs[1].Message, "exceeds the maximum") {
			t.Errorf("rejections %v, want fields %v", rs, want)
		}
	})
	t.Run("schema validation 422", func(t *testing.T) {
		f := newFake(t, sandboxBase)
		f.refuse = func(shipmentRequest) (int, problem) {
			return 422, problem{Instance: "expressapi/shipments", Title: "Validation error", Message: "Unprocessable Entity",
				Detail: "#/customerDetails/receiverDetails/contactInformation/email: string [x] does not match pattern"}
		}
		rs := rejectionsOf(t, mustFail(f.carrier().CreateShipment(ctx, testSettings(), request(parcel(1)))))
		if !reflect.DeepEqual(fields(rs), []string{"recipient_contact.email_address"}) {
			t.Errorf("rejections %v", rs)
		}
	})
	t.Run("unknown account", func(t *testing.T) {
		f := newFake(t, sandboxBase)
		s := testSettings()
		s[settingAccount] = "999999999"
		rs := rejectionsOf(t, mustFail(f.carrier().CreateShipment(ctx, s, request(parcel(1)))))
		if !reflect.DeepEqual(fields(rs), []string{settingAccount}) {
			t.Errorf("rejections %v", rs)
		}
	})
}

func TestFieldOfDHLMessages(t *testing.T) {
	for msg, want := range map[string]string{
		"#/customerDetails/shipperDetails/postalAddress/cityName: expected maxLength: 45":            "origin_address.city_name",
		"#/customerDetails/receiverDetails/contactInformation/phone: expected minLength: 1":          "recipient_contact.phone_number",
		"#/customerDetails/receiverDetails/postalAddress: required key [countryCode] not found":      "destination_address.country_code",
		"7127: The sellerDetails/postalAddress/countryCode value provided is invalid.":               "sellerDetails/postalAddress/countryCode",
		"#/content/packages/0/dimensions/height: 0.5 is not higher or equal to 1":                    "parcels.0.height_dimension",
		"#/content/packages/2/identifiers/0: extraneous key [dataIdentifier] is not permitted":       "parcels.2",
		"#/productCode: expected minLength: 1, actual: 0":                                            "product_type",
		"998: ShipTimeStamp is not well formatted.":                                                  "",
		"4001: Product not available for this origin and/or destination.":                            "",
		"#/plannedShippingDateAndTime: the date is in the past":                                      "shipping_date",
		"7147: The shipment description #/content/description Match Keyword[Description:UNIQUE JEW]": settingDescription,
		"7008: The requested Special Service Code  #/valueAddedServices/0/serviceCode 'xx' is not":   "#/valueAddedServices/0/serviceCode",
	} {
		if got := fieldOf(msg); got != want {
			t.Errorf("fieldOf(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestCredentials(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, sandboxBase)
	c := f.carrier()
	if err := c.ValidateCredentials(ctx, testSettings()); err != nil {
		t.Fatalf("ValidateCredentials: %v", err)
	}
	for _, key := range []string{settingKey, settingSecret} {
		s := testSettings()
		s[key] = "wrong"
		rs := rejectionsOf(t, c.ValidateCredentials(ctx, s))
		if len(rs) != 1 || rs[0].Field != settingKey || !strings.Contains(rs[0].Message, "Invalid credentials") {
			t.Errorf("wrong %s: %v", key, rs)
		}
		if _, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: "5374534601"}); rejectionsOf(t, err)[0].Field != settingKey {
			t.Errorf("tracking with wrong %s: %v", key, err)
		}
	}
	calls := f.count("")
	rs := rejectionsOf(t, c.ValidateCredentials(ctx, carrier.Settings{settingAccount: "1234567890123"}))
	if !reflect.DeepEqual(fields(rs), []string{settingKey, settingSecret, settingAccount}) || f.count("") != calls {
		t.Errorf("empty settings: %v after %d calls", rs, f.count("")-calls)
	}
}

func TestUnavailable(t *testing.T) {
	s := testSettings()
	for _, status := range []int{500, 503, 429} {
		f := newFake(t, sandboxBase)
		f.failNext(status, status, status)
		if _, err := f.carrier().CreateShipment(context.Background(), s, request(parcel(1))); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("create, HTTP %d: %v", status, err)
		}
		if _, err := f.carrier().Track(context.Background(), s, carrier.TrackingRequest{TrackingNumber: "5374534601"}); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("track, HTTP %d: %v", status, err)
		}
		if err := f.carrier().ValidateCredentials(context.Background(), s); !errors.Is(err, carrier.ErrUnavailable) {
			t.Errorf("credentials, HTTP %d: %v", status, err)
		}
	}
	f := newFake(t, sandboxBase)
	f.hang = true
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := f.carrier().CreateShipment(ctx, s, request(parcel(1))); !errors.Is(err, carrier.ErrUnavailable) || time.Since(start) > 2*time.Second {
		t.Errorf("hanging DHL: %v after %v", err, time.Since(start))
	}
}

func TestSandboxModePicksTheHost(t *testing.T) {
	sb, prod := newFake(t, sandboxBase), newFake(t, prodBase)
	c := New(Config{SandboxURL: sb.srv.URL + sandboxBase, ProductionURL: prod.srv.URL + prodBase, Now: func() time.Time { return fixedNow }})
	for _, tc := range []struct {
		name string
		mode any
		want *fake
	}{{"sandbox", true, sb}, {"production", false, prod}, {"default (sandbox)", nil, sb}} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			delete(s, "sandboxMode")
			if tc.mode != nil {
				s["sandboxMode"] = tc.mode
			}
			before := map[*fake]int{sb: sb.count(""), prod: prod.count("")}
			if _, err := c.CreateShipment(context.Background(), s, request(parcel(1))); err != nil {
				t.Fatal(err)
			}
			for _, f := range []*fake{sb, prod} {
				want := 0
				if f == tc.want {
					want = 1
				}
				if got := f.count("") - before[f]; got != want {
					t.Errorf("%d calls to %s, want %d", got, f.base, want)
				}
			}
		})
	}
	d := New(Config{})
	if d.baseURL(carrier.Settings{"sandboxMode": false}) != "https://express.api.dhl.com/mydhlapi" || d.baseURL(carrier.Settings{}) != "https://express.api.dhl.com/mydhlapi/test" {
		t.Error("documented hosts are not the defaults")
	}
}

func TestTrack(t *testing.T) {
	ctx := context.Background()
	f := newFake(t, sandboxBase)
	c := f.carrier()
	s := testSettings()
	for _, n := range []string{"1234567899", "JD014600009999999999"} {
		if tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: n}); err != nil || tr.Recognized {
			t.Errorf("unknown %s: %+v, %v", n, tr, err)
		}
	}
	out, err := c.CreateShipment(ctx, s, request(parcel(1), parcel(2)))
	if err != nil {
		t.Fatal(err)
	}
	f.setTracking(out.ProviderShipmentID, "PU", "RR", "PD", "NH")
	// The waybill itself: DHL's local times with their GMT offset.
	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.ProviderShipmentID})
	if err != nil || !tr.Recognized || len(tr.Events) != 4 {
		t.Fatalf("Track(waybill) = %+v, %v", tr, err)
	}
	got := map[string]carrier.TrackingStatus{}
	for _, e := range tr.Events {
		got[e.Code] = e.Status
	}
	if want := map[string]carrier.TrackingStatus{"PU": "in_transit", "RR": "in_transit", "PD": "", "NH": "delivery_failed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if first := tr.Events[0]; !first.At.Equal(time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("09:00 at GMT+01:00 read as %v", first.At)
	}
	if !strings.Contains(f.calls[len(f.calls)-1], "requestGMTOffsetPerEvent=true") {
		t.Errorf("waybill tracked as %s", f.calls[len(f.calls)-1])
	}
}

func TestInfo(t *testing.T) {
	info := New(Config{}).Info()
	if info.Code != "dhl_express" || info.SupportsCOD || info.MaxParcels != 999 || !reflect.DeepEqual(info.LabelFormats, []string{"pdf", "zpl", "epl"}) {
		t.Errorf("info %+v", info)
	}
	if want := map[string]bool{settingSecret: true}; !reflect.DeepEqual(info.SecretKeys(), want) {
		t.Errorf("secret keys %v", info.SecretKeys())
	}
	for _, p := range info.ProductTypes {
		if p.SupportsCOD || p.CODProduct != "" || p.PickupPoint != carrier.PickupPointOptional {
			t.Errorf("product %+v", p)
		}
	}
	s := testSettings()
	s[carrier.DefaultPickupPointSetting] = "PRG123"
	if errs := info.ValidateSettings(map[string]any(s)); len(errs) != 0 {
		t.Errorf("test settings invalid: %v", errs)
	}
	byKey := map[string]carrier.Setting{}
	for _, st := range info.Settings {
		byKey[st.Key] = st
	}
	if byKey[settingProduct].Default != "P" || byKey["sandboxMode"].Default != true || byKey[carrier.LabelFormatSetting].Default != "pdf" {
		t.Errorf("defaults %+v", byKey)
	}
}

// The limit published is DHL's (content.packages maxItems in its file),
// and the adapter refuses past it with the same number.
func TestPublishedParcelLimitIsDHLs(t *testing.T) {
	doc := docOf(t)
	pkgs := doc.Components.Schemas["supermodelIoLogisticsExpressCreateShipmentRequest"].Value.Properties["content"].Value.Properties["packages"].Value
	if pkgs.MaxItems == nil || int(*pkgs.MaxItems) != MaxParcels || New(Config{}).Info().MaxParcels != MaxParcels {
		t.Fatalf("DHL's maxItems %v, published %d", pkgs.MaxItems, New(Config{}).Info().MaxParcels)
	}
	f := newFake(t, sandboxBase)
	req := request(make([]carrier.Parcel, MaxParcels+1)...)
	for i := range req.Parcels {
		req.Parcels[i] = parcel(1)
	}
	rs := rejectionsOf(t, mustFail(f.carrier().CreateShipment(context.Background(), testSettings(), req)))
	if len(rs) != 1 || rs[0].Field != "parcels" || !strings.Contains(rs[0].Message, "1000 parcels exceed DHL Express's 999") || f.count("") != 0 {
		t.Errorf("1000 parcels: %v", rs)
	}
}

// The fake's OpenAPI check is real: what DHL's file refuses is caught.
func TestFakeRefusesRequestsOutsideDHLsOpenAPI(t *testing.T) {
	f := newFake(t, sandboxBase)
	var refused []string
	f.report = func(format string, args ...any) { refused = append(refused, format) }
	body := `{"plannedShippingDateAndTime":"2026-11-25T12:00:00 GMT+00:00","pickup":{"isRequested":false},"productCode":"P",
		"accounts":[{"typeCode":"shipper","number":"123456789"}],"outputImageProperties":{"encodingFormat":"png"},
		"customerDetails":{"shipperDetails":{"postalAddress":{"postalCode":"12000","cityName":"Praha","countryCode":"CZE","addressLine1":"V 1"},"contactInformation":{"phone":"1","companyName":"A","fullName":"A"}},
		"receiverDetails":{"postalAddress":{"postalCode":"53113","cityName":"Bonn","countryCode":"DE","addressLine1":"S 2","houseNumber":"2"},"contactInformation":{"phone":"1","companyName":"B","fullName":"B"}}},
		"content":{"packages":[{"weight":1}],"isCustomsDeclarable":false,"description":"Goods","incoterm":"DAP","unitOfMeasurement":"metric"}}`
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+sandboxBase+"/shipments", strings.NewReader(body))
	req.SetBasicAuth(testKey, testSecret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-version", APIVersion)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnprocessableEntity || len(refused) != 1 {
		t.Errorf("png labels, alpha-3 country, an undocumented houseNumber, no dimensions: HTTP %d, %d refusals", res.StatusCode, len(refused))
	}
}

func TestLabelInAnotherFormatIsAnError(t *testing.T) {
	ans := shipmentResponse{ShipmentTrackingNumber: "5374534601", Documents: []document{{ImageFormat: "PDF", Content: "JVBERi0=", TypeCode: "label"}}}
	if _, err := bookingLabels(ans, "zpl", 1); err == nil || !strings.Contains(err.Error(), "not the zpl") {
		t.Errorf("a PDF for zpl: %v", err)
	}
	if ls, err := bookingLabels(ans, "pdf", 1); err != nil || len(ls) != 1 || string(ls[0].Data) != "%PDF-" {
		t.Errorf("a PDF for pdf: %v %v", ls, err)
	}
}
