// Package app is the webhooks module's use cases.
package app

import (
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
)

// EventTypes are the event types a subscription may choose: every public
// event of the other modules.
var EventTypes = command.EventTypes

// Application is everything the module's ports may ask of it.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands are the write use cases.
type Commands struct {
	CreateSubscription usecase.CommandHandler[command.CreateSubscription]
	UpdateSubscription usecase.CommandHandler[command.UpdateSubscription]
	DeleteSubscription usecase.CommandHandler[command.DeleteSubscription]
	FanOutEvents       usecase.CommandHandler[command.FanOutEvents]
	DeliverWebhook     usecase.CommandHandler[command.DeliverWebhook]
	PurgeDeliveryLogs  usecase.CommandHandler[command.PurgeDeliveryLogs]
}

// Queries are the read use cases.
type Queries struct {
	GetSubscription   usecase.QueryHandler[query.GetSubscription, contract.Subscription]
	ListSubscriptions usecase.QueryHandler[query.ListSubscriptions, query.SubscriptionPage]
	ListDeliveryLogs  usecase.QueryHandler[query.ListDeliveryLogs, query.DeliveryLogPage]
	GetDeliveryLog    usecase.QueryHandler[query.GetDeliveryLog, contract.DeliveryLog]
}

// New wires the use cases to their ports; each reports to obs.
func New(repo domain.Repository, list query.SubscriptionList, logs query.DeliveryLogs, deliveries command.Deliveries, sender command.Sender,
	clk clock.Clock, obs usecase.Observer) Application {
	return Application{
		Commands: Commands{
			CreateSubscription: command.NewCreateSubscriptionHandler(repo, clk, obs),
			UpdateSubscription: command.NewUpdateSubscriptionHandler(repo, clk, obs),
			DeleteSubscription: command.NewDeleteSubscriptionHandler(repo, obs),
			FanOutEvents:       command.NewFanOutEventsHandler(deliveries, clk, obs),
			DeliverWebhook:     command.NewDeliverWebhookHandler(deliveries, sender, clk, obs),
			PurgeDeliveryLogs:  command.NewPurgeDeliveryLogsHandler(deliveries, clk, obs),
		},
		Queries: Queries{
			GetSubscription:   query.NewGetSubscriptionHandler(repo, obs),
			ListSubscriptions: query.NewListSubscriptionsHandler(list, obs),
			ListDeliveryLogs:  query.NewListDeliveryLogsHandler(logs, obs),
			GetDeliveryLog:    query.NewGetDeliveryLogHandler(logs, obs),
		},
	}
}
