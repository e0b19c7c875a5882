package command_test

import (
	"context"
	"testing"

	"shipd/modules/shipments/adapters/memory"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/usecase/usecasetest"
)

// updateCounter counts the repository's writes of one shipment.
type updateCounter struct {
	*memory.Repository
	updates int
}

func (r *updateCounter) Update(ctx context.Context, id string, fn func(sh *domain.Shipment) ([]domain.Event, error)) (*domain.Shipment, error) {
	r.updates++
	return r.Repository.Update(ctx, id, fn)
}

// A carrier whose answer brings every parcel's label and number costs one
// write: the acceptance and the merged label commit together, with the
// events of a shipment created. One that brings none costs the acceptance
// and then the label step's write.
func TestABookingWithItsLabelsInTheAnswerCommitsOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		labelsAfter bool
		want        int
	}{{"labels in the answer", false, 1}, {"labels fetched after", true, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			f.created(t, request("sh_1", 3))
			if tc.labelsAfter {
				f.carrier.onCreate = func(_ context.Context, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
					return bookedAnswer(req, false), nil
				}
			}
			counted := &updateCounter{Repository: f.repo}
			book := command.NewBookShipmentHandler(counted, f.channels, carrier.NewRegistry(f.carrier), f.labels, f.clock, carrierTimeout, usecasetest.Observer())
			if err := book.Handle(t.Context(), command.BookShipment{ShipmentID: "sh_1"}); err != nil {
				t.Fatal(err)
			}
			if st := f.state(t, "sh_1"); st.Status != domain.StatusCreated || !st.HasLabel {
				t.Fatalf("after the booking: status %s, label %v", st.Status, st.HasLabel)
			}
			if counted.updates != tc.want {
				t.Errorf("%d writes of the shipment, want %d", counted.updates, tc.want)
			}
		})
	}
}
