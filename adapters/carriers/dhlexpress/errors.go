package dhlexpress

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// problem is DHL's error answer (supermodelIoLogisticsExpressErrorResponse);
// status is a string there ("400").
type problem struct {
	Instance          string   `json:"instance,omitempty"`
	Detail            string   `json:"detail,omitempty"`
	Title             string   `json:"title,omitempty"`
	Message           string   `json:"message,omitempty"`
	AdditionalDetails []string `json:"additionalDetails,omitempty"`
	Status            string   `json:"status,omitempty"`
}

// messages are the problem's complaints: each additional detail when DHL
// lists several ("Multiple problems found, see Additional Details"), else
// its detail, else its title or message.
func (p problem) messages() []string {
	if len(p.AdditionalDetails) > 0 {
		return p.AdditionalDetails
	}
	for _, m := range []string{p.Detail, p.Title, p.Message} {
		if strings.TrimSpace(m) != "" {
			return []string{m}
		}
	}
	return nil
}

// problemMessage is an answer's complaint in one line, or its HTTP status.
func problemMessage(res *carrierhttp.Response) string {
	var p problem
	if json.Unmarshal(res.Body, &p) == nil {
		if ms := p.messages(); len(ms) > 0 {
			return strings.Join(ms, "; ")
		}
	}
	return "HTTP " + strconv.Itoa(res.Status) + " " + http.StatusText(res.Status)
}

// rejection turns a refusing answer into rejections, one per DHL message,
// each on shipd's field where the JSON pointer the message names maps to
// one, else on DHL's own path.
func rejection(res *carrierhttp.Response, what string) error {
	var p problem
	if json.Unmarshal(res.Body, &p) != nil || len(p.messages()) == 0 {
		return carrier.Reject("", "DHL Express refused the %s (HTTP %d %s)", what, res.Status, http.StatusText(res.Status))
	}
	var out []*carrier.Rejection
	for _, m := range p.messages() {
		out = append(out, &carrier.Rejection{Field: fieldOf(m), Message: "DHL Express: " + strings.TrimSpace(m)})
	}
	return carrier.RejectionOf(out)
}

var (
	// pointer is the request path a message names, as a JSON pointer
	// ("#/content/packages/0/weight") or bare ("receiverDetails/postalAddress/postalCode",
	// three segments at least, so that prose such as "and/or" is none).
	pointer = regexp.MustCompile(`#(/[A-Za-z0-9_]+)+|[A-Za-z][A-Za-z0-9_]*(/[A-Za-z0-9_]+){2,}`)
	// requiredKey is the key a "required key [x] not found" message misses.
	requiredKey = regexp.MustCompile(`required key \[([A-Za-z0-9_]+)\]`)
)

// DHL's address and contact properties, lower case, to shipd's.
var (
	addressFields = map[string]string{
		"postalcode": "postal_code", "cityname": "city_name", "countrycode": "country_code",
		"addressline1": "street_name", "addressline2": "street_name", "addressline3": "street_name",
	}
	contactFields = map[string]string{
		"phone": "phone_number", "mobilephone": "phone_number", "email": "email_address",
		"companyname": "company_name", "fullname": "last_name",
	}
	packageFields = map[string]string{
		"weight": "weight_amount", "length": "length_dimension", "width": "width_dimension", "height": "height_dimension",
	}
)

// fieldOf maps the first JSON pointer of a DHL message to shipd's field;
// a message naming none blames nothing, one naming a path shipd does not
// have keeps DHL's path.
func fieldOf(msg string) string {
	ptr := pointer.FindString(msg)
	if ptr == "" {
		return ""
	}
	segs := strings.Split(strings.ToLower(strings.TrimPrefix(ptr, "#/")), "/")
	if segs[0] == "shipperdetails" || segs[0] == "receiverdetails" {
		segs = append([]string{"customerdetails"}, segs...)
	}
	if m := requiredKey.FindStringSubmatch(msg); m != nil && strings.Index(msg, m[0]) > strings.Index(msg, ptr) {
		segs = append(segs, strings.ToLower(m[1]))
	}
	last := segs[len(segs)-1]
	switch head := segs[0]; {
	case head == "customerdetails" && len(segs) > 1:
		addr, contact := "", ""
		switch segs[1] {
		case "shipperdetails":
			addr, contact = "origin_address.", "sender_contact."
		case "receiverdetails":
			addr, contact = "destination_address.", "recipient_contact."
		}
		if addr != "" {
			if f, ok := addressFields[last]; ok {
				return addr + f
			}
			if f, ok := contactFields[last]; ok {
				return contact + f
			}
		}
	case head == "content" && len(segs) > 2 && segs[1] == "packages":
		if _, err := strconv.Atoi(segs[2]); err == nil {
			if f, ok := packageFields[last]; ok && len(segs) > 3 {
				return "parcels." + segs[2] + "." + f
			}
			return "parcels." + segs[2]
		}
	case head == "content" && len(segs) == 2 && segs[1] == "description":
		return settingDescription
	case head == "productcode" || head == "localproductcode":
		return "product_type"
	case head == "accounts":
		return settingAccount
	case head == "plannedshippingdateandtime":
		return "shipping_date"
	case head == "ondemanddelivery":
		return carrier.PickupPointField
	case head == "outputimageproperties" && last == "encodingformat":
		return "label_format"
	case head == "customerreferences":
		return "reference_number"
	}
	return ptr
}
