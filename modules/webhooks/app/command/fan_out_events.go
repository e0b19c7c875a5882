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

// FanOutEvents turns a run of other modules' events, in the order they
// happened, into a delivery of each for every subscription that takes it.
// The events of one resource must be fanned out in the order they happened:
// that order is the order their first attempts are made in. A run of one is
// how a single event goes.
type FanOutEvents struct {
	Events []PublicEvent
}

// PublicEvent is one event of another module as a receiver learns of it.
type PublicEvent struct {
	ID        string // the event's id, the same on every attempt
	Type      string
	AccountID string
	CreatedAt time.Time
	Data      map[string]any
}

// FanOutEventsHandler only writes rows: the POSTs happen in the delivery
// worker, outside any transaction.
type FanOutEventsHandler struct {
	deliveries Deliveries
	clock      clock.Clock
}

// NewFanOutEventsHandler builds the fan-out of events to subscriptions.
func NewFanOutEventsHandler(deliveries Deliveries, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[FanOutEvents] {
	return usecase.Command(FanOutEventsHandler{deliveries: deliveries, clock: clk}, obs)
}

// Handle renders each body once, so every attempt sends the same bytes, and
// stores the run's deliveries together, each with the resource its event is
// about. An event that cannot be rendered fails the run: written again one
// event at a time, it fails alone.
func (h FanOutEventsHandler) Handle(ctx context.Context, cmd FanOutEvents) error {
	if len(cmd.Events) == 0 {
		return nil
	}
	run := make([]OutboundEvent, 0, len(cmd.Events))
	for _, e := range cmd.Events {
		out, err := rendered(e)
		if err != nil {
			return err
		}
		run = append(run, out)
	}
	_, err := h.deliveries.FanOut(ctx, run, h.clock.Now())
	return err
}

// rendered is the event as every subscription to its type receives it.
func rendered(e PublicEvent) (OutboundEvent, error) {
	body, err := json.Marshal(contract.Delivery{ID: e.ID, CreatedAt: e.CreatedAt.UTC(), Type: e.Type, Data: e.Data})
	if err != nil {
		return OutboundEvent{}, fmt.Errorf("rendering %s %s: %w", e.Type, e.ID, err)
	}
	resource, err := resourceID(e.Type, body)
	if err != nil {
		return OutboundEvent{}, fmt.Errorf("reading the resource of %s %s: %w", e.Type, e.ID, err)
	}
	return OutboundEvent{ID: e.ID, Type: e.Type, AccountID: e.AccountID, CreatedAt: e.CreatedAt, ResourceID: resource, Body: body}, nil
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
