package ppl

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// problem is PPL's RFC 7807 error body (ASP.NET style).
type problem struct {
	Type     string              `json:"type"`
	Title    string              `json:"title"`
	Status   int                 `json:"status"`
	Detail   string              `json:"detail"`
	Instance string              `json:"instance"`
	Errors   map[string][]string `json:"errors"`
}

// problemDetail is ": <title/detail>" of a problem body, or "".
func problemDetail(body []byte) string {
	var p problem
	if json.Unmarshal(body, &p) != nil {
		return ""
	}
	switch {
	case p.Detail != "":
		return ": " + p.Detail
	case p.Title != "":
		return ": " + p.Title
	}
	return ""
}

// rejection turns a 4xx answer into *carrier.Rejection or
// carrier.Rejections: one per message of the errors map, on shipd's field
// where the vendor's path maps to one, else on the vendor's path; without an
// errors map, the detail (or title) alone.
func rejection(status int, body []byte) error {
	var p problem
	if err := json.Unmarshal(body, &p); err != nil || (p.Title == "" && p.Detail == "" && len(p.Errors) == 0) {
		return &carrier.Rejection{Message: fmt.Sprintf("PPL refused the request (HTTP %d): %s", status, carrierhttp.Snippet(body))}
	}
	keys := make([]string, 0, len(p.Errors))
	for k := range p.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out carrier.Rejections
	for _, k := range keys {
		for _, msg := range p.Errors[k] {
			out = append(out, &carrier.Rejection{Field: fieldOf(k), Message: msg})
		}
	}
	switch len(out) {
	case 0:
		msg := p.Detail
		if msg == "" {
			msg = p.Title
		}
		return &carrier.Rejection{Message: msg}
	case 1:
		return out[0]
	}
	return out
}

// fields maps PPL's request paths (case-insensitive, without the
// "Shipments[i]." prefix and with set item indexes replaced by [#]) to
// shipd's API field paths.
var fields = map[string]string{
	"productType":                     "product_type",
	"referenceId":                     "reference_number",
	"recipient":                       "destination_address",
	"recipient.zipCode":               "destination_address.postal_code",
	"recipient.city":                  "destination_address.city_name",
	"recipient.street":                "destination_address.street_name",
	"recipient.country":               "destination_address.country_code",
	"recipient.phone":                 "recipient_contact.phone_number",
	"recipient.email":                 "recipient_contact.email_address",
	"recipient.name":                  "recipient_contact.last_name",
	"recipient.contact":               "recipient_contact.last_name",
	"sender.zipCode":                  "origin_address.postal_code",
	"sender.city":                     "origin_address.city_name",
	"sender.street":                   "origin_address.street_name",
	"sender.country":                  "origin_address.country_code",
	"sender.phone":                    "sender_contact.phone_number",
	"sender.email":                    "sender_contact.email_address",
	"sender.name":                     "sender_contact.company_name",
	"cashOnDelivery":                  "cash_on_delivery_amount",
	"cashOnDelivery.codPrice":         "cash_on_delivery_amount",
	"cashOnDelivery.codCurrency":      "cash_on_delivery_currency",
	"specificDelivery":                carrier.PickupPointField,
	"specificDelivery.parcelShopCode": carrier.PickupPointField,
	"shipmentSet":                     "parcels",
	"shipmentSet.numberOfShipments":   "parcels",
}

var (
	shipmentPrefix = regexp.MustCompile(`(?i)^shipments\[\d+\]\.?`)
	setItem        = regexp.MustCompile(`(?i)^shipmentSet\.shipmentSetItems\[(\d+)\]\.weighedShipmentInfo\.weight$`)
)

// fieldOf maps one vendor error key to shipd's field, or returns it as is.
func fieldOf(key string) string {
	rest := shipmentPrefix.ReplaceAllString(key, "")
	if m := setItem.FindStringSubmatch(rest); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "parcels." + strconv.Itoa(n) + ".weight_amount"
	}
	for k, v := range fields {
		if strings.EqualFold(k, rest) {
			return v
		}
	}
	return key
}

// importRejection is a parcel PPL failed to import (importState Error): its
// message, and PPL's code in brackets; an unknown ParcelShop (PPL's legacy
// code 1023 UNKNOWN_PARCELSHOP_CODE [C]) blames the pickup point.
func importRejection(p batchParcel) *carrier.Rejection {
	msg := p.ErrorMessage
	if msg == "" {
		msg = "PPL could not import the shipment"
	}
	if p.ErrorCode != "" {
		msg += " (" + p.ErrorCode + ")"
	}
	r := &carrier.Rejection{Message: msg}
	if code := strings.ToUpper(p.ErrorCode); code == "1023" || strings.Contains(code, "PARCELSHOP") {
		r.Field = carrier.PickupPointField
	}
	return r
}
