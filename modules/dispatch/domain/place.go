package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The bounds of a pickup's text, the shipments module's for the same
// fields (ADR 0047).
const (
	maxText        = 255
	maxPhone       = 50
	maxHouseNumber = 50
	maxPostalCode  = 20
	MaxNote        = 500
)

// CheckAddress adds the problems of the address at path and returns it
// with its postal and country codes trimmed, the country in capitals.
func CheckAddress(errs fault.FieldErrors, path string, a carrier.Address) carrier.Address {
	a.PostalCode = strings.TrimSpace(a.PostalCode)
	a.CountryCode = strings.ToUpper(strings.TrimSpace(a.CountryCode))
	requiredText(errs, path+".street_name", a.StreetName, maxText, carrier.TextProblem)
	requiredText(errs, path+".house_number", a.HouseNumber, maxHouseNumber, carrier.NameProblem)
	optionalText(errs, path+".apartment_number", a.ApartmentNumber, maxHouseNumber, carrier.NameProblem)
	requiredText(errs, path+".city_name", a.CityName, maxText, carrier.TextProblem)
	requiredText(errs, path+".postal_code", a.PostalCode, maxPostalCode, carrier.NameProblem)
	switch {
	case a.CountryCode == "":
		errs.Add(path+".country_code", "is required")
	case !carrier.IsCountryCode(a.CountryCode):
		errs.Add(path+".country_code", "must be an ISO 3166-1 alpha-2 country code")
	}
	return a
}

// CheckContact adds the problems of the contact at path (a person or a
// company to ask for, a phone number the courier can call; an email address
// where one is given) and returns it with its email trimmed.
func CheckContact(errs fault.FieldErrors, path string, c carrier.Contact) carrier.Contact {
	c.Email = strings.TrimSpace(c.Email)
	optionalText(errs, path+".company_name", c.CompanyName, maxText, carrier.NameProblem)
	optionalText(errs, path+".first_name", c.FirstName, maxText, carrier.NameProblem)
	optionalText(errs, path+".last_name", c.LastName, maxText, carrier.NameProblem)
	if c.CompanyName == "" && c.FirstName == "" && c.LastName == "" {
		errs.Add(path+".company_name", "is required when the contact names no person")
	}
	if c.Email != "" && optionalText(errs, path+".email_address", c.Email, maxText, carrier.NameProblem) && !carrier.IsEmailAddress(c.Email) {
		errs.Add(path+".email_address", "must be a valid email address")
	}
	requiredText(errs, path+".phone_number", c.Phone, maxPhone, carrier.NameProblem)
	return c
}

// CheckNote adds the problem of a note to the courier that breaks the text
// rule or is longer than MaxNote.
func CheckNote(errs fault.FieldErrors, path, s string) {
	optionalText(errs, path, s, MaxNote, carrier.TextProblem)
}

func requiredText(errs fault.FieldErrors, path, s string, max int, rule func(string) string) {
	if s == "" {
		errs.Add(path, "is required")
		return
	}
	optionalText(errs, path, s, max, rule)
}

// optionalText adds the problem of s under rule, else of its length, and
// reports whether it had none.
func optionalText(errs fault.FieldErrors, path, s string, max int, rule func(string) string) bool {
	if p := rule(s); s != "" && p != "" {
		errs.Add(path, p)
		return false
	}
	if utf8.RuneCountInString(s) > max {
		errs.Add(path, "must be at most "+strconv.Itoa(max)+" characters")
		return false
	}
	return true
}
