package command

import (
	"context"

	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// RetryLabel asks for the label of a shipment the carrier holds whose label
// step gave up (ADR 0041): the booking worker fetches it again.
type RetryLabel struct {
	AccountID string
	ID        string
}

// RetryLabelHandler makes a given-up label due again.
type RetryLabelHandler struct {
	repo  domain.Repository
	clock clock.Clock
}

// NewRetryLabelHandler builds the retry of a label step.
func NewRetryLabelHandler(repo domain.Repository, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[RetryLabel] {
	return usecase.Command(RetryLabelHandler{repo: repo, clock: clk}, obs)
}

// Handle makes the label due again with a fresh count of attempts, and
// publishes shipment.updated, whose commit wakes the booking worker. A label
// already being fetched is left as it is.
func (h RetryLabelHandler) Handle(ctx context.Context, cmd RetryLabel) error {
	now := h.clock.Now()
	_, err := h.repo.Update(ctx, cmd.ID, func(sh *domain.Shipment) ([]domain.Event, error) {
		if !sh.BelongsTo(cmd.AccountID) {
			return nil, errForeign
		}
		was := sh.Stored().Version
		if err := sh.RetryLabel(now); err != nil || sh.Stored().Version == was {
			return nil, err
		}
		return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: shipmentEvent(sh, now)}}, nil
	})
	return err
}
