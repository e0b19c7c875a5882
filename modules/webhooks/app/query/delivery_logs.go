package query

import (
	"context"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/contract"
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
type DeliveryLogPage struct {
	Records []contract.DeliveryLog
	Total   int
}

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

// DeliveryLogsHandler serves both log queries.
type DeliveryLogsHandler struct {
	logs DeliveryLogs
}

// NewDeliveryLogsHandler returns the handler.
func NewDeliveryLogsHandler(logs DeliveryLogs) DeliveryLogsHandler {
	return DeliveryLogsHandler{logs: logs}
}

// List returns a page of the subscription's logs.
func (h DeliveryLogsHandler) List(ctx context.Context, q ListDeliveryLogs) (DeliveryLogPage, error) {
	if err := h.owned(ctx, q.AccountID, q.SubscriptionID); err != nil {
		return DeliveryLogPage{}, err
	}
	return h.logs.ListDeliveryLogs(ctx, q)
}

// Get returns one log of the subscription.
func (h DeliveryLogsHandler) Get(ctx context.Context, q GetDeliveryLog) (contract.DeliveryLog, error) {
	if err := h.owned(ctx, q.AccountID, q.SubscriptionID); err != nil {
		return contract.DeliveryLog{}, err
	}
	return h.logs.GetDeliveryLog(ctx, q.SubscriptionID, q.ID)
}

func (h DeliveryLogsHandler) owned(ctx context.Context, account, subscriptionID string) error {
	owner, err := h.logs.SubscriptionAccount(ctx, subscriptionID)
	if err != nil {
		return err
	}
	if owner != account {
		return command.NotYours()
	}
	return nil
}
