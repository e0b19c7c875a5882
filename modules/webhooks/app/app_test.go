package app_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/adapters/memory"
	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// accepting is a Sender whose receiver takes everything.
type accepting struct{}

func (accepting) Send(context.Context, domain.Request) domain.Response {
	return domain.Response{Status: 200}
}

// New wires every use case to the ports it is given: a subscription's life
// through the Application, as the ports and workers drive it.
func TestApplicationRunsASubscriptionsLife(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	clk := clock.NewManual(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	store := memory.NewStore(clk)
	a := app.New(store, store, store, store, accepting{}, clk, usecasetest.Observer())

	if !slices.Contains(app.EventTypes, "shipping_channel.created") || !slices.Contains(app.EventTypes, "tracking_parcel.status_changed") {
		t.Fatalf("event types %v lack the other modules' events", app.EventTypes)
	}
	if err := a.Commands.CreateSubscription.Handle(ctx, command.CreateSubscription{AccountID: "acc_1", SubscriptionID: "wh_1",
		Fields: domain.Fields{Name: "n", URL: "https://example.com/h", Events: []string{"shipping_channel.created"}, Secret: "12345678", Active: true}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Commands.FanOutEvents.Handle(ctx, command.FanOutEvents{Events: []command.PublicEvent{{ID: "evt_1", Type: "shipping_channel.created",
		AccountID: "acc_1", CreatedAt: clk.Now(), Data: map[string]any{}}}}); err != nil {
		t.Fatal(err)
	}
	due, err := store.Claim(ctx, 10, time.Minute)
	if err != nil || len(due) != 1 {
		t.Fatalf("due %v (%v)", due, err)
	}
	if err := a.Commands.DeliverWebhook.Handle(ctx, command.DeliverWebhook{Delivery: due[0]}); err != nil {
		t.Fatal(err)
	}
	logs, err := a.Queries.ListDeliveryLogs.Handle(ctx, query.ListDeliveryLogs{AccountID: "acc_1", SubscriptionID: "wh_1", Limit: 10})
	if err != nil || logs.Total != 1 || logs.Records[0].Status != domain.LogSuccess {
		t.Fatalf("logs %+v (%v)", logs, err)
	}
	if l, err := a.Queries.GetDeliveryLog.Handle(ctx, query.GetDeliveryLog{AccountID: "acc_1", SubscriptionID: "wh_1", ID: logs.Records[0].ID}); err != nil || l.EventID != "evt_1" {
		t.Fatalf("log %+v (%v)", l, err)
	}
	if err := a.Commands.UpdateSubscription.Handle(ctx, command.UpdateSubscription{AccountID: "acc_1", ID: "wh_1", Change: domain.Change{Name: new("renamed")}}); err != nil {
		t.Fatal(err)
	}
	if s, err := a.Queries.GetSubscription.Handle(ctx, query.GetSubscription{AccountID: "acc_1", ID: "wh_1"}); err != nil || s.Name != "renamed" {
		t.Fatalf("subscription %+v (%v)", s, err)
	}
	if page, err := a.Queries.ListSubscriptions.Handle(ctx, query.ListSubscriptions{AccountID: "acc_1", Limit: 10}); err != nil || page.Total != 1 {
		t.Fatalf("list %+v (%v)", page, err)
	}
	if err := a.Commands.DeleteSubscription.Handle(ctx, command.DeleteSubscription{AccountID: "acc_1", ID: "wh_1"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(domain.LogRetention + time.Second)
	if err := a.Commands.PurgeDeliveryLogs.Handle(ctx, command.PurgeDeliveryLogs{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Queries.ListDeliveryLogs.Handle(ctx, query.ListDeliveryLogs{AccountID: "acc_1", SubscriptionID: "wh_1", Limit: 10}); !fault.Is(err, fault.KindNotFound) {
		t.Fatalf("after the purge the deleted subscription is still known: %v", err)
	}
}
