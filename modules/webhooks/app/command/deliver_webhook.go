package command

import (
	"context"
	"log/slog"

	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/ids"
	"shipd/platform/usecase"
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

// NewDeliverWebhookHandler needs the sender that signs nothing itself: the
// request is signed here, the sender only POSTs it.
func NewDeliverWebhookHandler(deliveries Deliveries, sender Sender, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[DeliverWebhook] {
	return usecase.Command(DeliverWebhookHandler{deliveries: deliveries, sender: sender, clock: clk}, obs)
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

// NewPurgeDeliveryLogsHandler builds the purge of expired delivery logs.
func NewPurgeDeliveryLogsHandler(deliveries Deliveries, clk clock.Clock, obs usecase.Observer) usecase.CommandHandler[PurgeDeliveryLogs] {
	return usecase.Command(PurgeDeliveryLogsHandler{deliveries: deliveries, clock: clk}, obs)
}

// Handle purges, and logs how many rows went when any did.
func (h PurgeDeliveryLogsHandler) Handle(ctx context.Context, _ PurgeDeliveryLogs) error {
	n, err := h.deliveries.Purge(ctx, h.clock.Now().Add(-domain.LogRetention))
	if n > 0 {
		slog.InfoContext(ctx, "purged webhook delivery logs", "rows", n)
	}
	return err
}
