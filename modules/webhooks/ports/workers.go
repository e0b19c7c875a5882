package ports

import (
	"context"
	"log/slog"
	"time"

	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/app/command"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/server"
)

// DeliveryWorker makes due delivery attempts outside any transaction:
// claim (short tx, leased), sign and POST, record (short tx).
type DeliveryWorker struct {
	app        app.Application
	deliveries command.Deliveries
	loop       server.ClaimLoop[command.DueDelivery]
}

// NewDeliveryWorker returns the worker. The lease outlasts an attempt (the
// webhook timeout) and its recording; a worker killed mid-attempt loses the
// lease when it expires and the attempt is made again.
func NewDeliveryWorker(application app.Application, deliveries command.Deliveries, wake *messaging.Wakeup, cfg config.Config) *DeliveryWorker {
	lease := cfg.WebhookTimeout + 5*time.Second
	w := &DeliveryWorker{app: application, deliveries: deliveries}
	w.loop = server.ClaimLoop[command.DueDelivery]{
		Name: w.Name(), Every: cfg.WorkerPollInterval, Concurrency: cfg.WebhookConcurrency,
		Due: func() <-chan struct{} { return wake.Next(command.DeliveriesDue) },
		Claim: func(ctx context.Context, limit int) ([]command.DueDelivery, error) {
			return deliveries.Claim(ctx, limit, lease)
		},
		Do:      w.deliver,
		Release: deliveries.Release,
		Drain:   cfg.ShutdownTimeout,
		// A recorded first attempt frees the next event of its resource.
		Wake: deliveries.FirstAttemptsRecorded(),
	}
	return w
}

// QueueDepth counts the deliveries whose attempt is due (for /metrics).
func (w *DeliveryWorker) QueueDepth(ctx context.Context) (int, error) { return w.deliveries.Due(ctx) }

// Name names the worker.
func (w *DeliveryWorker) Name() string { return "webhooks.delivery" }

// Run delivers until ctx ends.
func (w *DeliveryWorker) Run(ctx context.Context) error { return w.loop.Run(ctx) }

func (w *DeliveryWorker) deliver(ctx context.Context, d command.DueDelivery) {
	err := w.app.Commands.DeliverWebhook.Handle(ctx, command.DeliverWebhook{Delivery: d})
	if err != nil && ctx.Err() == nil {
		// A failed attempt is a log, not an error; this is the database.
		slog.ErrorContext(ctx, "recording webhook delivery", "delivery_id", d.ID, "event_id", d.EventID, "err", err)
	}
}

// RetentionWorker deletes logs older than 30 days. Deletes are idempotent,
// so every instance may run it.
type RetentionWorker struct {
	app   app.Application
	every time.Duration
}

// NewRetentionWorker purges expired logs every WEBHOOK_PURGE_INTERVAL.
func NewRetentionWorker(application app.Application, cfg config.Config) *RetentionWorker {
	return &RetentionWorker{app: application, every: cfg.WebhookPurgeInterval}
}

// Name names the worker.
func (w *RetentionWorker) Name() string { return "webhooks.retention" }

// Run purges at start and then every interval until ctx ends.
func (w *RetentionWorker) Run(ctx context.Context) error {
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		err := w.app.Commands.PurgeDeliveryLogs.Handle(ctx, command.PurgeDeliveryLogs{})
		if err != nil && ctx.Err() == nil {
			slog.WarnContext(ctx, "purging webhook delivery logs", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
