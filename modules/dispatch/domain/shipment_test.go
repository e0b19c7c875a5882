package domain_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/ids"
)

func created() domain.Shipment {
	return domain.Shipment{ID: "sh_1", AccountID: "acc_1", ChannelID: "ch_1", Status: "created", ProviderShipmentID: "P-1",
		Reference: "order 17", ProductType: "standard",
		Parcels: []carrier.Parcel{
			{Type: "package", Weight: 1.5, WeightUnit: "KG"},
			{Type: "envelope", Weight: 250, WeightUnit: "G"},
			{Type: "package", Weight: 2, WeightUnit: "LB"},
		},
		TrackingNumbers: []string{"TN1", "TN2", "TN3"}, Sender: contact, Origin: address,
		Recipient:   carrier.Contact{FirstName: "Jana", Phone: "+420777888999"},
		Destination: carrier.Address{StreetName: "Dlouhá", HouseNumber: "12", CityName: "Brno", PostalCode: "60200", CountryCode: "CZ"}}
}

// Only a created shipment of the account's channel can be collected or
// handed over; each other one says why, in the order an account, a channel
// and a status are judged.
func TestDispatchProblem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(sh *domain.Shipment)
		want   string
	}{
		{"created", func(*domain.Shipment) {}, ""},
		{"another account's", func(sh *domain.Shipment) { sh.AccountID, sh.Status = "acc_2", "cancelled" }, "is a shipment of another account"},
		{"another channel's", func(sh *domain.Shipment) { sh.ChannelID, sh.Status = "ch_2", "cancelled" }, "is a shipment of another shipping channel (ch_2)"},
		{"cancelled", func(sh *domain.Shipment) { sh.Status = "cancelled" }, "is cancelled"},
		{"pending", func(sh *domain.Shipment) { sh.Status = "pending" }, "is not created at the carrier yet (its status is pending)"},
		{"failed", func(sh *domain.Shipment) { sh.Status = "failed" }, "has been handed over already (its status is failed)"},
		{"delivered", func(sh *domain.Shipment) { sh.Status = "delivered" }, "has been handed over already (its status is delivered)"},
	} {
		sh := created()
		tc.change(&sh)
		if got := sh.DispatchProblem("acc_1", "ch_1"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A shipment weighs its parcels' weights in kilograms, whatever unit each
// was given in; it is carried as its carrier's pickup or manifest names it.
func TestShipmentWeightAndCarried(t *testing.T) {
	sh := created()
	if got, want := sh.WeightKG(), 1.5+0.25+2*0.45359237; math.Abs(got-want) > 1e-9 {
		t.Errorf("weighs %v kg, want %v", got, want)
	}
	want := carrier.DispatchShipment{ShipmentID: "sh_1", ProviderShipmentID: "P-1", Reference: "order 17", ProductType: "standard",
		TrackingNumbers: []string{"TN1", "TN2", "TN3"}, Parcels: sh.Parcels, Recipient: sh.Recipient, Destination: sh.Destination}
	if got := sh.Carried(); !reflect.DeepEqual(got, want) {
		t.Errorf("carried as\n%+v\nwant\n%+v", got, want)
	}
	for id, want := range map[string]bool{ids.New(ids.Shipment): true, "sh_01ABC": false, ids.New(ids.Pickup): false, "": false,
		"sh_" + strings.ToLower(ids.New(ids.Shipment)[3:]): false} {
		if got := domain.IsShipmentID(id); got != want {
			t.Errorf("IsShipmentID(%q) = %v", id, got)
		}
	}
}
