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

// rejection turns a 4xx answer to a shipment call into *carrier.Rejection
// or carrier.Rejections (rejectionOn, fieldOf).
func rejection(status int, body []byte) error {
	return rejectionOn(status, body, fieldOf)
}

// rejectionOn turns a 4xx answer into *carrier.Rejection or
// carrier.Rejections: one per message of the errors map, on shipd's field
// where field maps the vendor's path to one, else on the vendor's path;
// without an errors map, the detail (or title) alone.
func rejectionOn(status int, body []byte, field func(string) string) error {
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
			out = append(out, &carrier.Rejection{Field: field(k), Message: msg})
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

// orderFields maps PPL's collection order paths (case-insensitive, without
// the "Orders[i]." prefix, or "$.orders[i]." where a value could not be
// read) to the pickup request's fields. The sender is the pickup address
// and contact; its name is the contact's company (else the person).
var orderFields = map[string]string{
	"sendDate":       carrier.PickupFieldDate,
	"sendTimeFrom":   carrier.PickupFieldReadyFrom,
	"sendTimeTo":     carrier.PickupFieldReadyUntil,
	"shipmentCount":  carrier.PickupFieldParcels,
	"note":           "note",
	"email":          carrier.PickupFieldContact + ".email_address",
	"sender":         carrier.PickupFieldAddress,
	"sender.zipCode": carrier.PickupFieldAddress + ".postal_code",
	"sender.city":    carrier.PickupFieldAddress + ".city_name",
	"sender.street":  carrier.PickupFieldAddress + ".street_name",
	"sender.country": carrier.PickupFieldAddress + ".country_code",
	"sender.name":    carrier.PickupFieldContact,
	"sender.name2":   carrier.PickupFieldContact,
	"sender.contact": carrier.PickupFieldContact,
	"sender.phone":   carrier.PickupFieldContact + ".phone_number",
	"sender.email":   carrier.PickupFieldContact + ".email_address",
	"referenceId":    "",
	"orderType":      "",
	"productType":    "",
}

var orderPrefix = regexp.MustCompile(`(?i)^(\$\.)?orders\[\d+\]\.?`)

// orderFieldOf maps one vendor error key of a collection order to the
// pickup request's field; shipd's own values (referenceId, orderType,
// productType) blame none; an unknown key is returned as is.
func orderFieldOf(key string) string {
	rest := orderPrefix.ReplaceAllString(key, "")
	for k, v := range orderFields {
		if strings.EqualFold(k, rest) {
			return v
		}
	}
	return key
}

// orderAnswerError is answerError for collection orders: 4xx is PPL
// refusing, on the pickup request's fields.
func orderAnswerError(what string, res *carrierhttp.Response) error {
	if res.Status >= 400 && res.Status < 500 {
		return rejectionOn(res.Status, res.Body, orderFieldOf)
	}
	return fmt.Errorf("ppl: %s: unexpected HTTP %d: %s", what, res.Status, carrierhttp.Snippet(res.Body))
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
