package command

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"shipd/modules/webhooks/contract"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// FanOutEvent turns one event of another module into a delivery for each
// subscription that takes it. The events of one resource must be fanned out
// in the order they happened: that order is the order their first attempts
// are made in.
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

// NewFanOutEventHandler builds the fan-out of events to subscriptions.
func NewFanOutEventHandler(deliveries Deliveries, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[FanOutEvent] {
	return usecase.Command(FanOutEventHandler{deliveries: deliveries, clock: clk}, obs)
}

// Handle renders the body once, so every attempt sends the same bytes, and
// stores the deliveries with the resource the event is about.
func (h FanOutEventHandler) Handle(ctx context.Context, cmd FanOutEvent) error {
	body, err := json.Marshal(contract.Delivery{ID: cmd.ID, CreatedAt: cmd.CreatedAt.UTC(), Type: cmd.Type, Data: cmd.Data})
	if err != nil {
		return fmt.Errorf("rendering %s %s: %w", cmd.Type, cmd.ID, err)
	}
	resource, err := resourceID(cmd.Type, body)
	if err != nil {
		return fmt.Errorf("reading the resource of %s %s: %w", cmd.Type, cmd.ID, err)
	}
	_, err = h.deliveries.FanOut(ctx, OutboundEvent{ID: cmd.ID, Type: cmd.Type, AccountID: cmd.AccountID, CreatedAt: cmd.CreatedAt,
		ResourceID: resource, Body: body}, h.clock.Now())
	return err
}

// resourceID reads the id of the resource an event is about from its body:
// data.<resource>.id, the resource being what the type names before its
// last dot (shipping_channel, shipment, tracking_parcel). Read from the
// rendered body because that is the one shape every event's data shares.
// Empty when the body has none: such an event waits for no other.
func resourceID(eventType string, body []byte) (string, error) {
	dot := strings.LastIndexByte(eventType, '.')
	if dot < 0 {
		return "", nil
	}
	var b struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return "", err
	}
	raw, ok := b.Data[eventType[:dot]]
	if !ok {
		return "", nil
	}
	var r struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", nil // not an object: no resource to keep in order
	}
	return r.ID, nil
}
