package dhlparcelde

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// requestStatus is DHL's RequestStatus (problem+json).
type requestStatus struct {
	Title      string `json:"title"`
	StatusCode int    `json:"statusCode"`
	Status     int    `json:"status,omitempty"`
	Detail     string `json:"detail,omitempty"`
	Instance   string `json:"instance,omitempty"`
}

// document is a label or another printable document of an item.
type document struct {
	B64        string `json:"b64,omitempty"`
	ZPL2       string `json:"zpl2,omitempty"`
	URL        string `json:"url,omitempty"`
	FileFormat string `json:"fileFormat,omitempty"`
}

type validationMessage struct {
	Property          string `json:"property"`
	ValidationMessage string `json:"validationMessage"`
	ValidationState   string `json:"validationState"`
}

// responseItem is one shipment of a LabelDataResponse.
type responseItem struct {
	ShipmentNo         string              `json:"shipmentNo,omitempty"`
	Sstatus            requestStatus       `json:"sstatus"`
	Label              *document           `json:"label,omitempty"`
	ValidationMessages []validationMessage `json:"validationMessages,omitempty"`
}

// labelDataResponse is the answer of every /orders call.
type labelDataResponse struct {
	Status requestStatus  `json:"status"`
	Items  []responseItem `json:"items,omitempty"`
}

func (s requestStatus) code() int {
	if s.StatusCode != 0 {
		return s.StatusCode
	}
	return s.Status
}

func (s requestStatus) ok() bool { c := s.code(); return c >= 200 && c < 300 }

func (s requestStatus) message() string {
	switch {
	case s.Title != "" && s.Detail != "":
		return s.Title + ": " + s.Detail
	case s.Detail != "":
		return s.Detail
	case s.Title != "":
		return s.Title
	}
	return "HTTP " + strconv.Itoa(s.code())
}

// statusMessage is the RequestStatus of an error answer, or its HTTP status.
func statusMessage(res *carrierhttp.Response) string {
	var st requestStatus
	if json.Unmarshal(res.Body, &st) == nil && st.code() != 0 {
		return st.message()
	}
	return "HTTP " + strconv.Itoa(res.Status) + " " + http.StatusText(res.Status)
}

// decodeLabelData reads a LabelDataResponse; an unreadable answer is the
// carrier misbehaving, not the user's fault.
func decodeLabelData(body []byte, what string) (labelDataResponse, error) {
	var out labelDataResponse
	if err := json.Unmarshal(body, &out); err != nil {
		return out, fmt.Errorf("dhl_parcel_de: %s: unreadable answer: %v", what, err)
	}
	return out, nil
}

// itemRejections turns the failed items' validation errors into
// rejections; index maps an item's position to the parcel it stands for.
func itemRejections(items []responseItem) []*carrier.Rejection {
	var out []*carrier.Rejection
	for i, it := range items {
		if it.Sstatus.ok() {
			continue
		}
		found := false
		for _, m := range it.ValidationMessages {
			if strings.EqualFold(m.ValidationState, "Warning") {
				continue
			}
			found = true
			out = append(out, carrier.Reject(field(m.Property, i), "%s", message(m, i, len(items))))
		}
		if !found {
			out = append(out, carrier.Reject("", "DHL refused parcel %d: %s", i+1, it.Sstatus.message()))
		}
	}
	return out
}

func message(m validationMessage, i, n int) string {
	msg := m.ValidationMessage
	if msg == "" {
		msg = "invalid"
	}
	if n > 1 {
		msg = fmt.Sprintf("parcel %d: %s", i+1, msg)
	}
	if m.Property != "" {
		msg += " (DHL " + m.Property + ")"
	}
	return msg
}

// answerError sorts a non-2xx answer of the shipping API.
func answerError(status int, body []byte, what string) error {
	if status == http.StatusBadRequest {
		if ld, err := decodeLabelData(body, what); err == nil {
			if r := carrier.RejectionOf(itemRejections(ld.Items)); r != nil {
				return r
			}
			if ld.Status.code() != 0 {
				return carrier.Reject("", "DHL refused the %s: %s", what, ld.Status.message())
			}
		}
	}
	var st requestStatus
	if json.Unmarshal(body, &st) == nil && st.code() != 0 {
		return carrier.Reject("", "DHL refused the %s (HTTP %d): %s", what, status, st.message())
	}
	return carrier.Reject("", "DHL refused the %s (HTTP %d)", what, status)
}

var indexed = regexp.MustCompile(`^shipments?(\[\d+\]|\.\d+)?\.`)

// consigneeFields and shipperFields map DHL address properties to shipd's.
var (
	addressFields = map[string]string{
		"addressStreet": "street_name", "addressHouse": "house_number", "postalCode": "postal_code",
		"city": "city_name", "country": "country_code",
	}
	contactFields = map[string]string{
		"phone": "phone_number", "email": "email_address", "name1": "last_name", "contactName": "last_name",
	}
	parcelFields = map[string]string{
		"weight": "weight_amount", "weight.value": "weight_amount", "weight.uom": "weight_amount",
		"dim.length": "length_dimension", "dim.width": "width_dimension", "dim.height": "height_dimension",
		"dim": "length_dimension", "dim.uom": "length_dimension",
	}
)

// field maps a DHL property path of the item at index i to shipd's API
// field, else keeps DHL's own name.
func field(property string, i int) string {
	p := indexed.ReplaceAllString(strings.TrimSpace(property), "")
	head, rest, _ := strings.Cut(p, ".")
	switch head {
	case "consignee", "shipper":
		addr, contact := "destination_address.", "recipient_contact."
		if head == "shipper" {
			addr, contact = "origin_address.", "sender_contact."
		}
		if f, ok := addressFields[rest]; ok {
			return addr + f
		}
		if f, ok := contactFields[rest]; ok {
			return contact + f
		}
	case "details", "dimension":
		if f, ok := parcelFields[rest]; ok {
			return "parcels." + strconv.Itoa(i) + "." + f
		}
	case "product":
		return "product_type"
	case "billingNumber":
		return "billingNumber"
	case "services":
		if strings.HasPrefix(rest, "cashOnDelivery") {
			if strings.Contains(rest, "currency") {
				return "cash_on_delivery.currency"
			}
			return "cash_on_delivery.amount"
		}
	}
	return property
}
