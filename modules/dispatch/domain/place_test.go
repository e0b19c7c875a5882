package domain_test

import (
	"reflect"
	"strings"
	"testing"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

const (
	lineBreak = `must not contain control characters or line breaks (found '\n')`
	bidi      = `must not contain invisible formatting characters such as bidi overrides or zero-width characters (found '\u202e')`
)

// long is n characters of two bytes each: the bounds count characters.
func long(n int) string { return strings.Repeat("é", n) }

var address = carrier.Address{StreetName: "Skladová", HouseNumber: "1", ApartmentNumber: "2a", CityName: "Praha",
	PostalCode: "110 00", CountryCode: "CZ"}

// Every rule of a pickup's address, on its field's path with the message
// the API answers.
func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(a *carrier.Address)
		want   map[string][]string
	}{
		{"whole", func(*carrier.Address) {}, nil},
		{"at its bounds", func(a *carrier.Address) {
			a.StreetName, a.HouseNumber, a.ApartmentNumber, a.CityName, a.PostalCode = long(255), long(50), long(50), long(255), long(20)
		}, nil},
		{"no apartment", func(a *carrier.Address) { a.ApartmentNumber = "" }, nil},
		{"nothing", func(a *carrier.Address) { *a = carrier.Address{} }, map[string][]string{
			"address.street_name": {"is required"}, "address.house_number": {"is required"}, "address.city_name": {"is required"},
			"address.postal_code": {"is required"}, "address.country_code": {"is required"}}},
		{"street of 256", func(a *carrier.Address) { a.StreetName = long(256) }, one("address.street_name", "must be at most 255 characters")},
		{"street with a line break", func(a *carrier.Address) { a.StreetName = "Sklad\nová" }, one("address.street_name", lineBreak)},
		{"street with a bidi override (free text)", func(a *carrier.Address) { a.StreetName = "Sklad\u202eová" }, nil},
		{"house number of 51", func(a *carrier.Address) { a.HouseNumber = long(51) }, one("address.house_number", "must be at most 50 characters")},
		{"house number with a bidi override", func(a *carrier.Address) { a.HouseNumber = "1\u202e" }, one("address.house_number", bidi)},
		{"apartment of 51", func(a *carrier.Address) { a.ApartmentNumber = long(51) }, one("address.apartment_number", "must be at most 50 characters")},
		{"apartment with a bidi override", func(a *carrier.Address) { a.ApartmentNumber = "\u202e2" }, one("address.apartment_number", bidi)},
		{"city of 256", func(a *carrier.Address) { a.CityName = long(256) }, one("address.city_name", "must be at most 255 characters")},
		{"city with a line break", func(a *carrier.Address) { a.CityName = "Praha\r" }, one("address.city_name", `must not contain control characters or line breaks (found '\r')`)},
		{"postal code of 21", func(a *carrier.Address) { a.PostalCode = long(21) }, one("address.postal_code", "must be at most 20 characters")},
		{"postal code of white space", func(a *carrier.Address) { a.PostalCode = "  " }, one("address.postal_code", "is required")},
		{"postal code with a bidi override", func(a *carrier.Address) { a.PostalCode = "110\u202e00" }, one("address.postal_code", bidi)},
		{"country of white space", func(a *carrier.Address) { a.CountryCode = " " }, one("address.country_code", "is required")},
		{"country no code", func(a *carrier.Address) { a.CountryCode = "XX" }, one("address.country_code", "must be an ISO 3166-1 alpha-2 country code")},
		{"country of three letters", func(a *carrier.Address) { a.CountryCode = "CZE" }, one("address.country_code", "must be an ISO 3166-1 alpha-2 country code")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := address
			tc.change(&a)
			errs := fault.FieldErrors{}
			domain.CheckAddress(errs, "address", a)
			if got := fields(t, errs.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CheckAddress = %v, want %v", got, tc.want)
			}
		})
	}
}

// An address is kept as written but for its postal code, trimmed, and its
// country code, trimmed and in capitals.
func TestCheckAddressTrimsTheCodes(t *testing.T) {
	a := address
	a.StreetName, a.PostalCode, a.CountryCode = " Skladová ", " 110 00\t", " cz "
	got := domain.CheckAddress(fault.FieldErrors{}, "address", a)
	want := address
	want.StreetName = " Skladová "
	if got != want {
		t.Errorf("checked %+v, want %+v", got, want)
	}
}

var contact = carrier.Contact{CompanyName: "Acme s.r.o.", FirstName: "Petr", LastName: "Novák", Email: "ship@acme.test", Phone: "+420111222333"}

// Every rule of a pickup's contact: someone to ask for (a company or a
// person), a phone number, an email address where one is given.
func TestCheckContact(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *carrier.Contact)
		want   map[string][]string
	}{
		{"whole", func(*carrier.Contact) {}, nil},
		{"a company only", func(c *carrier.Contact) { c.FirstName, c.LastName, c.Email = "", "", "" }, nil},
		{"a first name only", func(c *carrier.Contact) { c.CompanyName, c.LastName = "", "" }, nil},
		{"a last name only", func(c *carrier.Contact) { c.CompanyName, c.FirstName = "", "" }, nil},
		{"at its bounds", func(c *carrier.Contact) {
			c.CompanyName, c.FirstName, c.LastName, c.Email, c.Phone = long(255), long(255), long(255), strings.Repeat("a", 248)+"@b.test", long(50)
		}, nil},
		{"nobody", func(c *carrier.Contact) { c.CompanyName, c.FirstName, c.LastName = "", "", "" },
			one("contact.company_name", "is required when the contact names no person")},
		{"nothing", func(c *carrier.Contact) { *c = carrier.Contact{} }, map[string][]string{
			"contact.company_name": {"is required when the contact names no person"}, "contact.phone_number": {"is required"}}},
		{"company of 256", func(c *carrier.Contact) { c.CompanyName = long(256) }, one("contact.company_name", "must be at most 255 characters")},
		{"first name with a bidi override", func(c *carrier.Contact) { c.FirstName = "Petr\u202e" }, one("contact.first_name", bidi)},
		{"last name with a line break", func(c *carrier.Contact) { c.LastName = "No\nvák" }, one("contact.last_name", lineBreak)},
		{"email malformed", func(c *carrier.Contact) { c.Email = "ship" }, one("contact.email_address", "must be a valid email address")},
		{"email of 256", func(c *carrier.Contact) { c.Email = strings.Repeat("a", 249) + "@b.test" },
			one("contact.email_address", "must be at most 255 characters")},
		{"email with a bidi override", func(c *carrier.Contact) { c.Email = "a\u202e@b.test" }, one("contact.email_address", bidi)},
		{"email of white space", func(c *carrier.Contact) { c.Email = "  " }, nil},
		{"no phone", func(c *carrier.Contact) { c.Phone = "" }, one("contact.phone_number", "is required")},
		{"phone of 51", func(c *carrier.Contact) { c.Phone = long(51) }, one("contact.phone_number", "must be at most 50 characters")},
		{"phone with a bidi override", func(c *carrier.Contact) { c.Phone = "+420\u202e1" }, one("contact.phone_number", bidi)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := contact
			tc.change(&c)
			errs := fault.FieldErrors{}
			domain.CheckContact(errs, "contact", c)
			if got := fields(t, errs.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CheckContact = %v, want %v", got, tc.want)
			}
		})
	}
	c := contact
	c.Email = " ship@acme.test "
	if got := domain.CheckContact(fault.FieldErrors{}, "contact", c); got != contact {
		t.Errorf("checked %+v, want the email trimmed: %+v", got, contact)
	}
}

// A note to the courier is free text of at most 500 characters, on one
// line.
func TestCheckNote(t *testing.T) {
	for note, want := range map[string]map[string][]string{
		"":                    nil,
		"ring at gate B":      nil,
		long(500):             nil,
		long(501):             one("note", "must be at most 500 characters"),
		"gate B\nthen left":   one("note", lineBreak),
		"gate \u202eB (bidi)": nil,
	} {
		errs := fault.FieldErrors{}
		domain.CheckNote(errs, "note", note)
		if got := fields(t, errs.Err()); !reflect.DeepEqual(got, want) {
			t.Errorf("CheckNote(%.20q) = %v, want %v", note, got, want)
		}
	}
}
