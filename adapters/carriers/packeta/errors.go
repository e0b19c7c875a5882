package packeta

import (
	"strconv"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// Fault classes of the WSDL the adapter reads [V].
const (
	faultPassword         = "IncorrectApiPasswordFault"
	faultAttributes       = "PacketAttributesFault"
	faultPacketID         = "PacketIdFault"
	faultCancelNotAllowed = "CancelNotAllowedFault"
	faultSenderNotExists  = "SenderNotExists"
	faultExternalGateway  = "ExternalGatewayFault"
)

// attributesFault is the detail of a PacketAttributesFault [V]: one fault
// per refused attribute.
type attributesFault struct {
	Faults []struct {
		Name  string `xml:"name"`
		Fault string `xml:"fault"`
	} `xml:"attributes>fault"`
}

// faultError sorts a fault that any call can meet; the rest stay *Fault for
// the caller to read (rejection turns them into the port's kinds).
func faultError(f *Fault) error {
	switch f.Class {
	case faultPassword:
		return &carrier.Rejection{Field: settingPassword, Message: "Packeta refused the API password: " + f.Text}
	case faultSenderNotExists:
		return &carrier.Rejection{Field: settingEshop, Message: "Packeta knows no such sender: " + f.Text}
	case faultExternalGateway:
		// The carrier Packeta hands the packet to did not answer Packeta.
		return carrierhttp.Unavailable("%s", f.Error())
	}
	return f
}

// packetFields maps PacketAttributes names to shipd's request fields;
// addressId and weight depend on the product and the parcel (fieldOf).
var packetFields = map[string]string{
	"name":        "recipient_contact.first_name",
	"surname":     "recipient_contact.last_name",
	"company":     "recipient_contact.company_name",
	"email":       "recipient_contact.email_address",
	"phone":       "recipient_contact.phone_number",
	"cod":         "cash_on_delivery_amount",
	"currency":    "cash_on_delivery_currency",
	"street":      "destination_address.street_name",
	"houseNumber": "destination_address.house_number",
	"city":        "destination_address.city_name",
	"zip":         "destination_address.postal_code",
	"size":        "parcels",
	"eshop":       settingEshop,
}

// fieldOf is shipd's field for a refused attribute of parcel i's packet, or
// Packeta's own name where none corresponds (number, value, …).
func fieldOf(name, product string, parcel int) string {
	switch name {
	case "addressId":
		if product == ProductHomeDelivery {
			return settingHomeCarrier
		}
		return carrier.PickupPointField
	case "weight":
		return "parcels." + strconv.Itoa(parcel) + ".weight_amount"
	}
	if f, ok := packetFields[name]; ok {
		return f
	}
	return name
}

// rejection turns what createPacket answered for parcel i into the port's
// error: each refused attribute a Rejection on its field, any other fault a
// Rejection with Packeta's message.
func rejection(err error, product string, parcel int) error {
	f, ok := asFault(err)
	if !ok {
		return err
	}
	if f.Class == faultAttributes {
		var d attributesFault
		if f.Detail.decode(&d) == nil && len(d.Faults) > 0 {
			var out carrier.Rejections
			for _, a := range d.Faults {
				out = append(out, &carrier.Rejection{Field: fieldOf(a.Name, product, parcel), Message: a.Fault})
			}
			return carrier.RejectionOf(out)
		}
	}
	return faultRejection(f)
}

// faultRejection is a fault as a Rejection naming no field.
func faultRejection(f *Fault) *carrier.Rejection {
	msg := f.Text
	if msg == "" {
		msg = f.Class
	}
	return &carrier.Rejection{Message: "Packeta: " + msg}
}
