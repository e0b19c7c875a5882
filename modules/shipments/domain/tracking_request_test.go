package domain_test

import (
	"reflect"
	"testing"

	"shipd/modules/shipments/domain"
)

// A created shipment with tracking asks for its numbered parcels once, its
// recipient named by the person, else the company; a pending one, one
// without tracking, or one with no numbered parcel asks nothing.
func TestRequestTracking(t *testing.T) {
	t.Parallel()
	tn := "TN1"
	created := domain.Stored{ID: "sh_1", AccountID: "acc_1", ChannelID: "ch_1", Provider: "fake", Status: domain.StatusCreated,
		EnableTracking: true, Parcels: []domain.Parcel{{TrackingNumber: &tn}, {}},
		Recipient: domain.Contact{CompanyName: "Acme s.r.o.", EmailAddress: "a@example.com", PhoneNumber: "+420123456789"}}
	for _, tc := range []struct {
		name string
		edit func(*domain.Stored)
		want *domain.TrackingRequest
	}{
		{"the company named when no person is", func(*domain.Stored) {}, &domain.TrackingRequest{AccountID: "acc_1", ShipmentID: "sh_1",
			ChannelID: "ch_1", Provider: "fake", TrackingNumbers: []string{"TN1"},
			Recipient: domain.TrackingRecipient{Name: "Acme s.r.o.", Email: "a@example.com", Phone: "+420123456789"}}},
		{"the person named, cash awaited", func(s *domain.Stored) {
			s.Recipient.LastName = "Nová"
			s.COD = &domain.CashOnDelivery{AmountMinor: 100, Currency: "CZK"}
		}, &domain.TrackingRequest{AccountID: "acc_1", ShipmentID: "sh_1", ChannelID: "ch_1", Provider: "fake", TrackingNumbers: []string{"TN1"},
			Recipient: domain.TrackingRecipient{Name: "Nová", Email: "a@example.com", Phone: "+420123456789"}, CashOnDelivery: true}},
		{"pending", func(s *domain.Stored) { s.Status = domain.StatusPending }, nil},
		{"tracking disabled", func(s *domain.Stored) { s.EnableTracking = false }, nil},
		{"no numbered parcel", func(s *domain.Stored) { s.Parcels = []domain.Parcel{{}} }, nil},
	} {
		st := created
		tc.edit(&st)
		sh := domain.Restore(st)
		sh.RequestTracking()
		if got := sh.TakeTrackingRequest(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: asked %+v, want %+v", tc.name, got, tc.want)
		}
		if again := sh.TakeTrackingRequest(); again != nil {
			t.Errorf("%s: taken twice", tc.name)
		}
	}
	if got := (domain.Contact{FirstName: "Jana", LastName: "Nová", CompanyName: "Acme"}).RecipientName(); got != "Jana Nová" {
		t.Errorf("name %q", got)
	}
}
