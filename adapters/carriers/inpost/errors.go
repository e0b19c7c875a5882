package inpost

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// apiErrorBody is ShipX's error answer:
// {"status":400,"error":"validation_failed","message":"…","details":{…}}.
type apiErrorBody struct {
	Status  int             `json:"status"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details"`
}

// apiError sorts a ShipX answer that is not a success: 401 blames the
// token, 403 and 404 blame notFoundField (the organization on calls under
// it; "" on calls about one shipment), validation_failed becomes one
// Rejection per field, anything else one Rejection with ShipX's message.
// That 401, 403 and 404 answers carry the same body is assumed [U]; without
// a message the raw body, else the status text, is shown.
func apiError(res *carrierhttp.Response, notFoundField string) error {
	return apiErrorWith(res, notFoundField, fieldPath)
}

// apiErrorWith is apiError naming the fields of validation details through
// fields (the request's own: a shipment's, a dispatch order's).
func apiErrorWith(res *carrierhttp.Response, notFoundField string, fields func(vendor string) string) error {
	var body apiErrorBody
	_ = json.Unmarshal(res.Body, &body) // best effort: without ShipX's error body the raw body is shown
	msg := body.Message
	if msg == "" {
		msg = strings.TrimSpace(string(res.Body))
	}
	if msg == "" {
		msg = http.StatusText(res.Status)
	}
	describe := func(m string) string {
		if body.Error != "" {
			return fmt.Sprintf("InPost: %s (%s)", m, body.Error)
		}
		return fmt.Sprintf("InPost: %s (HTTP %d)", m, res.Status)
	}
	switch {
	case res.Status == http.StatusUnauthorized:
		return &carrier.Rejection{Field: "apiToken", Message: describe(msg)}
	case res.Status == http.StatusForbidden || res.Status == http.StatusNotFound:
		return &carrier.Rejection{Field: notFoundField, Message: describe(msg)}
	case body.Error == "validation_failed":
		if rs := detailRejections(body.Details, fields); len(rs) > 0 {
			if len(rs) == 1 {
				return rs[0]
			}
			return rs
		}
	}
	return &carrier.Rejection{Message: describe(msg)}
}

// detailRejections flattens ShipX's validation details, whose values are
// lists of messages under field names that may be dotted ("receiver.phone")
// or nested objects and lists (the nesting is not documented [U]; both are
// read), into Rejections on shipd's fields (fields of the ShipX path),
// sorted by ShipX's path.
func detailRejections(raw json.RawMessage, fields func(vendor string) string) carrier.Rejections {
	flat := map[string][]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				walk(join(path, k), sub)
			}
		case []any:
			for i, sub := range x {
				switch sub.(type) {
				case map[string]any, []any:
					walk(join(path, strconv.Itoa(i)), sub)
				default:
					flat[path] = append(flat[path], fmt.Sprint(sub))
				}
			}
		case nil:
		default:
			flat[path] = append(flat[path], fmt.Sprint(x))
		}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	walk("", v)
	paths := make([]string, 0, len(flat))
	for p := range flat {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out carrier.Rejections
	for _, p := range paths {
		msg := fmt.Sprintf("InPost: %s %s", p, strings.Join(flat[p], ", "))
		if p == "" {
			msg = "InPost: " + strings.Join(flat[p], ", ")
		}
		out = append(out, &carrier.Rejection{Field: fields(p), Message: msg})
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fields maps ShipX request fields to shipd's API field paths. Parcel paths
// are matched with their index (see fieldPath).
var fields = map[string]string{
	"receiver":                         "recipient_contact",
	"receiver.first_name":              "recipient_contact.first_name",
	"receiver.last_name":               "recipient_contact.last_name",
	"receiver.company_name":            "recipient_contact.company_name",
	"receiver.email":                   "recipient_contact.email_address",
	"receiver.phone":                   "recipient_contact.phone_number",
	"receiver.address":                 "destination_address",
	"receiver.address.street":          "destination_address.street_name",
	"receiver.address.building_number": "destination_address.house_number",
	"receiver.address.city":            "destination_address.city_name",
	"receiver.address.post_code":       "destination_address.postal_code",
	"receiver.address.country_code":    "destination_address.country_code",
	"sender":                           "sender_contact",
	"sender.first_name":                "sender_contact.first_name",
	"sender.last_name":                 "sender_contact.last_name",
	"sender.company_name":              "sender_contact.company_name",
	"sender.email":                     "sender_contact.email_address",
	"sender.phone":                     "sender_contact.phone_number",
	"sender.address":                   "origin_address",
	"sender.address.street":            "origin_address.street_name",
	"sender.address.building_number":   "origin_address.house_number",
	"sender.address.city":              "origin_address.city_name",
	"sender.address.post_code":         "origin_address.postal_code",
	"sender.address.country_code":      "origin_address.country_code",
	"parcels":                          "parcels",
	"cod":                              "cash_on_delivery.amount",
	"cod.amount":                       "cash_on_delivery.amount",
	"cod.currency":                     "cash_on_delivery.currency",
	"insurance":                        "cash_on_delivery.amount",
	"insurance.amount":                 "cash_on_delivery.amount",
	"insurance.currency":               "cash_on_delivery.currency",
	"service":                          "product_type",
	"reference":                        "reference_number",
	"custom_attributes.target_point":   carrier.PickupPointField,
	"custom_attributes.sending_method": "sendingMethod",
}

var parcelFields = map[string]string{
	"":                  "",
	"weight":            "weight_amount",
	"weight.amount":     "weight_amount",
	"dimensions":        "length_dimension",
	"dimensions.length": "length_dimension",
	"dimensions.width":  "width_dimension",
	"dimensions.height": "height_dimension",
	"template":          "parcel_type",
}

var parcelPath = regexp.MustCompile(`^parcels\.(\d+)(?:\.(.*))?$`)

// fieldPath is shipd's field for a ShipX field, or the ShipX field itself
// when there is none.
func fieldPath(vendor string) string {
	if f, ok := fields[vendor]; ok {
		return f
	}
	if m := parcelPath.FindStringSubmatch(vendor); m != nil {
		if f, ok := parcelFields[m[2]]; ok {
			if f == "" {
				return "parcels." + m[1]
			}
			return "parcels." + m[1] + "." + f
		}
	}
	return vendor
}
