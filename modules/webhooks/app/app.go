// Package app is the webhooks module's use cases.
package app

import (
	"slices"

	channels "shipd/modules/channels/contract"
	shipments "shipd/modules/shipments/contract"
	tracking "shipd/modules/tracking/contract"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
)

// EventTypes are the event types a subscription may choose: every public
// event of the other modules.
var EventTypes = slices.Concat(channels.EventTypes, shipments.PublicEventTypes, tracking.EventTypes)

// Application is everything the module's ports may ask of it.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the write use cases.
type Commands struct {
	CreateSubscription command.CreateSubscriptionHandler
	UpdateSubscription command.UpdateSubscriptionHandler
	DeleteSubscription command.DeleteSubscriptionHandler
	FanOutEvent        command.FanOutEventHandler
	DeliverWebhook     command.DeliverWebhookHandler
	PurgeDeliveryLogs  command.PurgeDeliveryLogsHandler
}

// Queries are the read use cases.
type Queries struct {
	GetSubscription   query.GetSubscriptionHandler
	ListSubscriptions query.ListSubscriptionsHandler
	DeliveryLogs      query.DeliveryLogsHandler
}

// New wires the use cases to their ports.
func New(repo domain.Repository, list query.SubscriptionList, logs query.DeliveryLogs, deliveries command.Deliveries, sender command.Sender, clk clock.Clock) Application {
	return Application{
		Commands: Commands{
			CreateSubscription: command.NewCreateSubscriptionHandler(repo, clk),
			UpdateSubscription: command.NewUpdateSubscriptionHandler(repo, clk),
			DeleteSubscription: command.NewDeleteSubscriptionHandler(repo),
			FanOutEvent:        command.NewFanOutEventHandler(deliveries, clk),
			DeliverWebhook:     command.NewDeliverWebhookHandler(deliveries, sender, clk),
			PurgeDeliveryLogs:  command.NewPurgeDeliveryLogsHandler(deliveries, clk),
		},
		Queries: Queries{
			GetSubscription:   query.NewGetSubscriptionHandler(repo),
			ListSubscriptions: query.NewListSubscriptionsHandler(list),
			DeliveryLogs:      query.NewDeliveryLogsHandler(logs),
		},
	}
}
