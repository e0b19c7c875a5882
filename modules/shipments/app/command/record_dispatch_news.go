package command

import (
	"context"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// DispatchNews is what the dispatch module said of a shipment: the pickup
// that is to collect it (PickupID), the pickup that will not come
// (CancelledPickupID), or the manifest it was handed over on.
type DispatchNews struct {
	ShipmentID        string
	PickupID          string
	CancelledPickupID string
	ManifestID        string
}

// RecordDispatchNews is a run of dispatch news, in the order the dispatch
// module published it.
type RecordDispatchNews struct {
	News []DispatchNews
}

// RecordDispatchNewsHandler shows on each shipment its pickup and manifest.
type RecordDispatchNewsHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewRecordDispatchNewsHandler builds what keeps shipments in step with
// the dispatch module's pickups and manifests.
func NewRecordDispatchNewsHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[RecordDispatchNews] {
	return usecase.Command(RecordDispatchNewsHandler{repo: repo, clock: clk}, obs)
}

// Handle records each news that tells a shipment something new, with
// shipment.updated, each shipment written once in the transaction the
// context holds (the consumer group's). News of a shipment deleted
// meanwhile is dropped; news read again changes nothing.
func (h RecordDispatchNewsHandler) Handle(ctx context.Context, cmd RecordDispatchNews) error {
	now := h.clock.Now()
	changes := make([]domain.Change, len(cmd.News))
	for i, news := range cmd.News {
		changes[i] = domain.Change{ID: news.ShipmentID, Apply: func(sh *domain.Shipment) []domain.Event {
			changed := false
			switch {
			case news.ManifestID != "":
				changed = sh.HandedOver(news.ManifestID, now)
			case news.PickupID != "":
				changed = sh.CollectedBy(news.PickupID, now)
			case news.CancelledPickupID != "":
				changed = sh.PickupCancelled(news.CancelledPickupID, now)
			}
			if !changed {
				return nil
			}
			return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}
		}}
	}
	return h.repo.UpdateAll(ctx, changes)
}
