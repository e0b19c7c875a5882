package command

import (
	"context"

	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/ids"
)

// DeliverWebhook makes the next attempt of a claimed delivery.
type DeliverWebhook struct {
	Delivery DueDelivery
}

// DeliverWebhookHandler signs and sends outside any transaction, then
// records the attempt and its successor in a new short one.
type DeliverWebhookHandler struct {
	deliveries Deliveries
	sender     Sender
	clock      clock.Clock
}

// NewDeliverWebhookHandler returns the handler.
func NewDeliverWebhookHandler(deliveries Deliveries, sender Sender, clk clock.Clock) DeliverWebhookHandler {
	return DeliverWebhookHandler{deliveries: deliveries, sender: sender, clock: clk}
}

// Handle makes one attempt. A subscription paused or deleted since the
// delivery was due ends it unsent. If ctx ends while the POST is in flight
// (shutdown) nothing is recorded: the lease runs out and the attempt is made
// again, by this instance after a restart or by another.
func (h DeliverWebhookHandler) Handle(ctx context.Context, cmd DeliverWebhook) error {
	d := cmd.Delivery
	if !d.SubscriptionActive {
		return h.deliveries.Record(ctx, d.Delivery, func(cur *domain.Delivery, _ bool) (domain.LogEntry, bool) {
			cur.Cancel()
			return domain.LogEntry{}, false
		})
	}
	at := h.clock.Now()
	req := domain.SignedRequest(d.Delivery, d.URL, d.Secret, ids.NewAt(ids.WebhookLog, at), at)
	res := h.sender.Send(ctx, req)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	attempt := domain.Attempt{Number: d.Attempts + 1, Request: req, At: at, Result: res}
	return h.deliveries.Record(ctx, d.Delivery, func(cur *domain.Delivery, active bool) (domain.LogEntry, bool) {
		return cur.Attempted(attempt, active), true
	})
}

// PurgeDeliveryLogs deletes what is older than the retention period.
type PurgeDeliveryLogs struct{}

// PurgeDeliveryLogsHandler runs the purge.
type PurgeDeliveryLogsHandler struct {
	deliveries Deliveries
	clock      clock.Clock
}

// NewPurgeDeliveryLogsHandler returns the handler.
func NewPurgeDeliveryLogsHandler(deliveries Deliveries, clk clock.Clock) PurgeDeliveryLogsHandler {
	return PurgeDeliveryLogsHandler{deliveries: deliveries, clock: clk}
}

// Handle purges and says how many rows went.
func (h PurgeDeliveryLogsHandler) Handle(ctx context.Context, _ PurgeDeliveryLogs) (int64, error) {
	return h.deliveries.Purge(ctx, h.clock.Now().Add(-domain.LogRetention))
}
