package query

import (
	"context"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/contract"
	"shipd/platform/usecase"
)

// ListDeliveryLogs asks for one page of a subscription's attempt logs,
// newest first.
type ListDeliveryLogs struct {
	AccountID      string
	SubscriptionID string
	Status         string // optional filter: success or failed
	EventType      string // optional filter
	Offset         int
	Limit          int
}

// DeliveryLogPage is one page and the number of all matches.
type DeliveryLogPage = usecase.Page[contract.DeliveryLog]

// GetDeliveryLog asks for one attempt log of a subscription.
type GetDeliveryLog struct {
	AccountID      string
	SubscriptionID string
	ID             string
}

// DeliveryLogs reads the attempt logs. Logs outlive a deleted subscription
// (until they expire), so SubscriptionAccount also knows deleted ones.
type DeliveryLogs interface {
	SubscriptionAccount(ctx context.Context, subscriptionID string) (string, error)
	ListDeliveryLogs(ctx context.Context, q ListDeliveryLogs) (DeliveryLogPage, error)
	GetDeliveryLog(ctx context.Context, subscriptionID, id string) (contract.DeliveryLog, error)
}

// ListDeliveryLogsHandler pages through a subscription's logs.
type ListDeliveryLogsHandler struct {
	logs DeliveryLogs
}

// NewListDeliveryLogsHandler reads the delivery logs.
func NewListDeliveryLogsHandler(logs DeliveryLogs, obs usecase.Observer) usecase.QueryHandler[ListDeliveryLogs, DeliveryLogPage] {
	return usecase.Query(ListDeliveryLogsHandler{logs: logs}, obs)
}

// Handle returns a page of the subscription's logs.
func (h ListDeliveryLogsHandler) Handle(ctx context.Context, q ListDeliveryLogs) (DeliveryLogPage, error) {
	if err := subscriptionOf(ctx, h.logs, q.AccountID, q.SubscriptionID); err != nil {
		return DeliveryLogPage{}, err
	}
	return h.logs.ListDeliveryLogs(ctx, q)
}

// GetDeliveryLogHandler reads one log of a subscription.
type GetDeliveryLogHandler struct {
	logs DeliveryLogs
}

// NewGetDeliveryLogHandler reads the delivery logs.
func NewGetDeliveryLogHandler(logs DeliveryLogs, obs usecase.Observer) usecase.QueryHandler[GetDeliveryLog, contract.DeliveryLog] {
	return usecase.Query(GetDeliveryLogHandler{logs: logs}, obs)
}

// Handle returns the log.
func (h GetDeliveryLogHandler) Handle(ctx context.Context, q GetDeliveryLog) (contract.DeliveryLog, error) {
	if err := subscriptionOf(ctx, h.logs, q.AccountID, q.SubscriptionID); err != nil {
		return contract.DeliveryLog{}, err
	}
	return h.logs.GetDeliveryLog(ctx, q.SubscriptionID, q.ID)
}

// subscriptionOf refuses logs of another account's subscription.
func subscriptionOf(ctx context.Context, logs DeliveryLogs, account, subscriptionID string) error {
	owner, err := logs.SubscriptionAccount(ctx, subscriptionID)
	if err != nil {
		return err
	}
	if owner != account {
		return command.NotYours()
	}
	return nil
}
