package allegro

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// apiError is Allegro's Error400 (also Error403, Error404, Error504: the same
// fields) [V].
type apiError struct {
	Code        string  `json:"code,omitempty"`
	Details     string  `json:"details,omitempty"`
	Message     string  `json:"message,omitempty"`
	Path        *string `json:"path,omitempty"`
	UserMessage string  `json:"userMessage,omitempty"`
}

// errorList is the body of Allegro's 400, 403, 404 and 504 answers [V].
type errorList struct {
	Errors []apiError `json:"errors"`
}

// authError is Allegro's AuthError, the body of a 401 [V].
type authError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// text is the most useful message of e: the user's (translated), else the
// developer's, with the code.
func (e apiError) text() string {
	msg := e.UserMessage
	if msg == "" {
		msg = e.Message
	}
	if msg == "" {
		msg = e.Details
	}
	if msg == "" {
		msg = "refused"
	}
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	return msg
}

func (e apiError) path() string {
	if e.Path == nil {
		return ""
	}
	return *e.Path
}

// authMessage is the reason of a 401 answer.
func authMessage(body []byte) string {
	var a authError
	if json.Unmarshal(body, &a) == nil && a.Error != "" {
		if a.ErrorDescription != "" {
			return a.Error + ": " + a.ErrorDescription
		}
		return a.Error
	}
	return "HTTP 401"
}

// answerError sorts an answer that is not the one expected: Allegro's
// refusals (4xx with its error list) are Rejections, each blaming shipd's
// field where its path maps to one (methodSetting is the setting holding the
// delivery method the request named); anything else is not understood.
func answerError(what string, status int, body []byte, methodSetting string) error {
	return answerErrorWith(what, status, body, shipmentFields(methodSetting))
}

// answerErrorWith is answerError naming shipd's fields through fields.
func answerErrorWith(what string, status int, body []byte, fields fieldMap) error {
	var list errorList
	_ = json.Unmarshal(body, &list) // best effort: without Allegro's error list the status is told
	if status >= 400 && status < 500 {
		if r := rejectionsWith(list.Errors, fields); r != nil {
			return r
		}
		return carrier.Reject("", "Allegro refused %s: HTTP %d %s", what, status, http.StatusText(status))
	}
	return fmt.Errorf("allegro: %s: unexpected HTTP %d: %s", what, status, carrierhttp.Snippet(body))
}

// rejectionsOf turns Allegro's errors about a shipment into Rejections
// (nil for none).
func rejectionsOf(errs []apiError, methodSetting string) error {
	return rejectionsWith(errs, shipmentFields(methodSetting))
}

// fieldMap names shipd's field of an Allegro request path.
type fieldMap func(path string) string

// shipmentFields is fieldOf for requests about a shipment.
func shipmentFields(methodSetting string) fieldMap {
	return func(path string) string { return fieldOf(path, methodSetting) }
}

// rejectionsWith turns Allegro's errors into Rejections, each blaming the
// field fields names for its path (nil for none).
func rejectionsWith(errs []apiError, fields fieldMap) error {
	problems := make([]*carrier.Rejection, 0, len(errs))
	for _, e := range errs {
		msg := e.text()
		if p := e.path(); p != "" {
			msg += " (Allegro " + p + ")"
		}
		problems = append(problems, &carrier.Rejection{Field: fields(e.path()), Message: msg})
	}
	return carrier.RejectionOf(problems)
}

var (
	// index is "[3]" in packages[3].weight (AssumedErrorPaths), made ".3".
	index = regexp.MustCompile(`\[(\d+)\]`)

	addressFields = map[string]string{
		"street": "street_name", "postalCode": "postal_code", "city": "city_name", "countryCode": "country_code",
	}
	contactFields = map[string]string{
		"name": "last_name", "company": "company_name", "email": "email_address", "phone": "phone_number",
	}
	packageFields = map[string]string{
		"weight": "weight_amount", "length": "length_dimension", "width": "width_dimension",
		"height": "height_dimension", "type": "parcel_type",
	}
	// settingFields are request properties that come from the channel's
	// settings; the delivery method is the product's (methodSetting).
	settingFields = map[string]string{
		"credentialsId": settingCredentialsID, "cashOnDelivery.iban": settingCODIban,
		"cashOnDelivery.ownerName": settingCODOwner, "sender.point": settingSenderPoint,
	}
)

// fieldOf maps an Allegro request path to shipd's field, else keeps
// Allegro's own name.
func fieldOf(path, methodSetting string) string {
	p := strings.TrimPrefix(index.ReplaceAllString(strings.TrimSpace(path), ".$1"), "input.")
	if f, ok := settingFields[p]; ok {
		return f
	}
	parts := strings.Split(p, ".")
	switch parts[0] {
	case "deliveryMethodId":
		return methodSetting
	case "labelFormat":
		return "label_format"
	case "referenceNumber":
		return "reference_number"
	case "cashOnDelivery":
		if len(parts) > 1 && parts[1] == "currency" {
			return "cash_on_delivery.currency"
		}
		return "cash_on_delivery.amount"
	case "receiver", "sender":
		if len(parts) < 2 {
			break
		}
		addr, contact := "destination_address.", "recipient_contact."
		if parts[0] == "sender" {
			addr, contact = "origin_address.", "sender_contact."
		}
		if parts[1] == "point" {
			return carrier.PickupPointField
		}
		if f, ok := addressFields[parts[1]]; ok {
			return addr + f
		}
		if f, ok := contactFields[parts[1]]; ok {
			return contact + f
		}
	case "packages":
		if len(parts) >= 3 {
			if f, ok := packageFields[parts[2]]; ok {
				return "parcels." + parts[1] + "." + f
			}
		}
		if len(parts) == 1 {
			return "parcels"
		}
	}
	return path
}
