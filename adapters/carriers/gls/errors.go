package gls

import (
	"fmt"
	"regexp"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// shipitError turns a ShipIT answer that is not 200 into an error: a 4xx is
// GLS saying no (reason in the "error" and "message" headers, empty body) →
// *carrier.Rejection; anything else is unexpected.
func shipitError(what string, res *carrierhttp.Response) error {
	return refusal(what, res, fieldOf)
}

// refusal is shipitError with the refused field read from GLS's words by
// field (fieldOf for shipments, pickupFieldOf for collections).
func refusal(what string, res *carrierhttp.Response, field func(string) string) error {
	code := strings.TrimSpace(res.Header.Get(ErrorHeader))
	msg := strings.TrimSpace(res.Header.Get(MessageHeader))
	if res.Status >= 400 && res.Status < 500 {
		text := msg
		switch {
		case code != "" && msg != "":
			text = code + ": " + msg
		case code != "":
			text = code
		case msg == "":
			text = fmt.Sprintf("GLS refused %s (HTTP %d)", what, res.Status)
		}
		return &carrier.Rejection{Field: field(code + " " + msg), Message: text}
	}
	return fmt.Errorf("gls: %s: unexpected HTTP %d %s %s", what, res.Status, code, msg)
}

// unitIndex finds the parcel a ShipIT field path names: ShipmentUnit[1] or
// ShipmentUnit.1 (0-based, as in the request).
var unitIndex = regexp.MustCompile(`(?i)ShipmentUnit(?:\[|\.)(\d+)`)

// fieldRules map what a ShipIT message names (its request field path, or a
// word of it) to shipd's API field paths, first match wins. %d is the
// parcel index found by unitIndex.
var fieldRules = []struct{ contains, field string }{
	{"contactid", "contactId"},
	{"cash", "cash_on_delivery.amount"},
	{"shipper.address.zipcode", "origin_address.postal_code"},
	{"shipper.address.countrycode", "origin_address.country_code"},
	{"shipper.address.city", "origin_address.city"},
	{"shipper.address.street", "origin_address.street_name"},
	{"zipcode", "destination_address.postal_code"},
	{"countrycode", "destination_address.country_code"},
	{"address.city", "destination_address.city"},
	{"streetnumber", "destination_address.house_number"},
	{"address.street", "destination_address.street_name"},
	{"phone", "recipient_contact.phone_number"},
	{"email", "recipient_contact.email"},
	{"weight", "parcels.%d.weight_amount"},
	{"product", "product_type"},
}

func fieldOf(text string) string {
	low := strings.ToLower(text)
	for _, r := range fieldRules {
		if !strings.Contains(low, r.contains) {
			continue
		}
		if strings.Contains(r.field, "%d") {
			i := 0
			if m := unitIndex.FindStringSubmatch(text); m != nil {
				_, _ = fmt.Sscan(m[1], &i) // digits, by the pattern
			}
			return fmt.Sprintf(r.field, i)
		}
		return r.field
	}
	return ""
}
