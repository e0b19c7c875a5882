package command

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"shipd/modules/webhooks/contract"
	"shipd/platform/clock"
)

// FanOutEvent turns one event of another module into a delivery for each
// subscription that takes it.
type FanOutEvent struct {
	ID        string // the event's id, the same on every attempt
	Type      string
	AccountID string
	CreatedAt time.Time
	Data      map[string]any
}

// FanOutEventHandler only writes rows: the POSTs happen in the delivery
// worker, outside any transaction.
type FanOutEventHandler struct {
	deliveries Deliveries
	clock      clock.Clock
}

// NewFanOutEventHandler returns the handler.
func NewFanOutEventHandler(deliveries Deliveries, clk clock.Clock) FanOutEventHandler {
	return FanOutEventHandler{deliveries: deliveries, clock: clk}
}

// Handle renders the body once, so every attempt sends the same bytes, and
// stores the deliveries.
func (h FanOutEventHandler) Handle(ctx context.Context, cmd FanOutEvent) error {
	body, err := json.Marshal(contract.Delivery{ID: cmd.ID, CreatedAt: cmd.CreatedAt.UTC(), Type: cmd.Type, Data: cmd.Data})
	if err != nil {
		return fmt.Errorf("rendering %s %s: %w", cmd.Type, cmd.ID, err)
	}
	_, err = h.deliveries.FanOut(ctx, OutboundEvent{ID: cmd.ID, Type: cmd.Type, AccountID: cmd.AccountID, CreatedAt: cmd.CreatedAt, Body: body}, h.clock.Now())
	return err
}
