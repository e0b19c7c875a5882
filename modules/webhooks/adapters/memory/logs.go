package memory

import (
	"cmp"
	"context"
	"slices"

	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/fault"
)

// SubscriptionAccount returns the account of a subscription, deleted or
// not (until the purge takes the deleted one).
func (s *Store) SubscriptionAccount(_ context.Context, subscriptionID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("SubscriptionAccount", subscriptionID); err != nil {
		return "", err
	}
	sub, ok := s.subscriptions[subscriptionID]
	if !ok {
		return "", fault.NotFound("Webhook subscription")
	}
	return sub.stored.AccountID, nil
}

// ListDeliveryLogs returns one page of a subscription's logs, newest first
// (then by id, highest first).
func (s *Store) ListDeliveryLogs(_ context.Context, q query.ListDeliveryLogs) (query.DeliveryLogPage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("ListDeliveryLogs", q.SubscriptionID); err != nil {
		return query.DeliveryLogPage{}, err
	}
	var matches []domain.LogEntry
	for _, l := range s.logs {
		if l.SubscriptionID == q.SubscriptionID && (q.Status == "" || l.Status == q.Status) && (q.EventType == "" || l.EventType == q.EventType) {
			matches = append(matches, l)
		}
	}
	slices.SortFunc(matches, func(a, b domain.LogEntry) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	page := query.DeliveryLogPage{Total: len(matches), Records: []contract.DeliveryLog{}}
	for _, l := range window(matches, q.Offset, q.Limit) {
		page.Records = append(page.Records, s.record(l))
	}
	return page, nil
}

// GetDeliveryLog returns one log of the subscription.
func (s *Store) GetDeliveryLog(_ context.Context, subscriptionID, id string) (contract.DeliveryLog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.interfered("GetDeliveryLog", id); err != nil {
		return contract.DeliveryLog{}, err
	}
	for _, l := range s.logs {
		if l.ID == id && l.SubscriptionID == subscriptionID {
			return s.record(l), nil
		}
	}
	return contract.DeliveryLog{}, fault.NotFound("Webhook subscription log")
}

// record is the log as the API shows it: with its event's body, which a
// log does not copy, and no next retry once a pause or delete cancelled
// the delivery.
func (s *Store) record(l domain.LogEntry) contract.DeliveryLog {
	out := contract.DeliveryLog{ID: l.ID, WebhookSubscriptionID: l.SubscriptionID, EventID: l.EventID, EventType: l.EventType,
		Status: l.Status, URL: l.URL, RequestHeaders: map[string]string{}, RequestBody: string(s.bodies[l.EventID].data),
		ResponseStatus: l.ResponseStatus, ResponseBody: l.ResponseBody, DurationMS: l.DurationMS, Attempt: l.Attempt,
		NextRetryAt: copyTime(l.NextRetryAt), CreatedAt: l.CreatedAt}
	for _, h := range l.RequestHeaders {
		out.RequestHeaders[h.Name] = h.Value
	}
	if l.ErrorMessage != nil {
		msg := *l.ErrorMessage
		out.ErrorMessage = &msg
	}
	if d, ok := s.deliveries[l.DeliveryID]; ok && d.d.Outcome == domain.OutcomeCancelled {
		out.NextRetryAt = nil
	}
	return out
}
