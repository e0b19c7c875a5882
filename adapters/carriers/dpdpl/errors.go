package dpdpl

import (
	"fmt"
	"strconv"
	"strings"

	"shipd/platform/carrier"
)

// credentialWords mark a fault message as DPD refusing the login [U]: DPD's
// text is not documented where it could be read.
var credentialWords = []string{"login", "password", "hasło", "haslo", "auth", "credential", "uprawnie", "access denied"}

// faultError turns a SOAP fault of a call into a *carrier.Rejection (DPD
// refusing it: the password when the message speaks of the login, else no
// field); other errors pass as they are.
func faultError(err error, what string) error {
	f, ok := asFault(err)
	if !ok {
		return err
	}
	msg := f.message()
	field := ""
	low := strings.ToLower(msg)
	for _, w := range credentialWords {
		if strings.Contains(low, w) {
			field = "password"
			break
		}
	}
	return carrier.Reject(field, "DPD Poland refused the %s: %s", what, msg)
}

// packageRejection turns a refused package into rejections: one per
// ValidationInfo of the package or of its parcels, on shipd's field where
// DPD's FieldNames maps to one; without any, the statuses alone.
func packageRejection(sessionStatus string, p packageResponse) error {
	var out []*carrier.Rejection
	for _, v := range p.Validation {
		out = append(out, carrier.Reject(fieldOf(v.FieldNames, -1), "%s", validationMessage(v, -1)))
	}
	for i, parcel := range p.Parcels {
		for _, v := range parcel.Validation {
			out = append(out, carrier.Reject(fieldOf(v.FieldNames, i), "%s", validationMessage(v, i)))
		}
	}
	if len(out) == 0 {
		status := p.Status
		if status == "" || status == statusOK {
			status = sessionStatus
		}
		return carrier.Reject("", "DPD Poland refused the booking: %s", status)
	}
	return carrier.RejectionOf(out)
}

// validationMessage is DPD's Info with its code and field, and the parcel.
func validationMessage(v validationInfo, parcel int) string {
	msg := strings.TrimSpace(v.Info)
	if msg == "" {
		msg = v.ErrorCode
	}
	var tags []string
	if v.ErrorCode != "" && v.ErrorCode != msg {
		tags = append(tags, v.ErrorCode)
	}
	if v.FieldNames != "" {
		tags = append(tags, "DPD "+v.FieldNames)
	}
	if len(tags) > 0 {
		msg += " (" + strings.Join(tags, ", ") + ")"
	}
	if parcel >= 0 {
		msg = fmt.Sprintf("parcel %d: %s", parcel+1, msg)
	}
	return msg
}

// addressFields and contactFields map the fields of DPD's
// packageAddressOpenUMLFeV1 to shipd's.
var (
	addressFields = map[string]string{
		"address": "street_name", "city": "city_name", "countrycode": "country_code", "postalcode": "postal_code",
	}
	contactFields = map[string]string{
		"name": "last_name", "company": "company_name", "phone": "phone_number", "email": "email_address",
	}
	parcelFields = map[string]string{
		"weight": "weight_amount", "sizex": "length_dimension", "sizey": "width_dimension", "sizez": "height_dimension",
	}
)

// fieldOf maps DPD's FieldNames (element paths such as
// "receiver.postalCode", several comma-separated [U]) of the package, or of
// parcel i when i >= 0, to shipd's field; one it cannot map is kept as DPD
// names it.
func fieldOf(fieldNames string, parcel int) string {
	first, _, _ := strings.Cut(fieldNames, ",")
	path := strings.ToLower(strings.TrimSpace(first))
	path = strings.TrimPrefix(path, "packages.")
	head, rest, _ := strings.Cut(path, ".")
	switch head {
	case "receiver", "sender":
		addr, contact := "destination_address.", "recipient_contact."
		if head == "sender" {
			addr, contact = "origin_address.", "sender_contact."
		}
		if f, ok := addressFields[rest]; ok {
			return addr + f
		}
		if f, ok := contactFields[rest]; ok {
			return contact + f
		}
		if rest == "fid" {
			return "masterFid"
		}
	case "parcels", "parcel":
		if f, ok := parcelFields[rest]; ok && parcel >= 0 {
			return "parcels." + strconv.Itoa(parcel) + "." + f
		}
	case "weight", "sizex", "sizey", "sizez":
		if parcel >= 0 {
			return "parcels." + strconv.Itoa(parcel) + "." + parcelFields[head]
		}
	case "services":
		switch {
		case strings.HasPrefix(rest, "cod.currency"):
			return "cash_on_delivery_currency"
		case strings.HasPrefix(rest, "cod"):
			return "cash_on_delivery_amount"
		case strings.HasPrefix(rest, "dpdpickup"):
			return carrier.PickupPointField
		}
	}
	return strings.TrimSpace(first)
}
