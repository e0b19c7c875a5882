package command_test

import (
	"reflect"
	"testing"
	"time"

	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
)

// A shipment the carrier created asks the tracking module, with the
// booking, to track its parcels when tracking is enabled (the default),
// once, by the carrier's numbers, for its recipient by first and last
// name; with tracking disabled it asks nothing. The
// rule is the domain's (Shipment.RequestTracking), so these tests see what
// PostgreSQL sends (repositorytest holds the repositories to it).
func TestABookedShipmentAsksForTrackingAsTheDomainDecides(t *testing.T) {
	t.Parallel()
	noTracking := false
	for _, tc := range []struct {
		name string
		edit func(*command.CreateShipment)
		want []domain.TrackingRequest
	}{
		{"tracked by default, the person named", withCOD, []domain.TrackingRequest{{
			AccountID: account, ShipmentID: "sh_1", ChannelID: "ch_1", Provider: fakeInfo().Code, TrackingNumbers: []string{"TN1", "TN2"},
			Recipient:      domain.TrackingRecipient{Name: "Jana Nová", Email: "jana@example.com", Phone: "+420123456789"},
			CashOnDelivery: true}}},
		{"tracking disabled: nothing asked", func(c *command.CreateShipment) { c.Shipment.EnableTracking = &noTracking }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			cmd := request("sh_1", 2)
			tc.edit(&cmd)
			f.created(t, cmd)
			if got := f.repo.TrackingRequests(); len(got) != 0 {
				t.Fatalf("a pending shipment asked for tracking: %+v", got)
			}
			f.clock.Advance(time.Minute)
			for range 2 { // a second booking finds the shipment decided and asks nothing more
				if err := f.book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
					t.Fatal(err)
				}
			}
			if st := f.state(t, "sh_1"); st.Status != domain.StatusCreated {
				t.Fatalf("status %s, want created", st.Status)
			}
			if got := f.repo.TrackingRequests(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tracking asked\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}
