// Package contract is the webhooks module's published language: the records
// the API shows. The module publishes no events and offers no facade; it
// only listens to the other modules.
package contract

import "time"

// MaskedSecret is what every response shows in place of a signing secret.
const MaskedSecret = "••••••••••••••••"

// Subscription is the public record of a webhook subscription.
type Subscription struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	Secret    string    `json:"secret"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// DeliveryLog is the public record of one delivery attempt. next_retry_at
// is when the next attempt is due; null after a success, after the last
// retry (the delivery failed for good) or once the subscription was paused
// or deleted.
type DeliveryLog struct {
	ID                    string            `json:"id"`
	WebhookSubscriptionID string            `json:"webhook_subscription_id"`
	EventID               string            `json:"event_id"`
	EventType             string            `json:"event_type"`
	Status                string            `json:"status"`
	URL                   string            `json:"url"`
	RequestHeaders        map[string]string `json:"request_headers"`
	RequestBody           string            `json:"request_body"`
	ResponseStatus        int               `json:"response_status"`
	ResponseBody          string            `json:"response_body"`
	DurationMS            int64             `json:"duration_ms"`
	ErrorMessage          *string           `json:"error_message"`
	Attempt               int               `json:"attempt"`
	NextRetryAt           *time.Time        `json:"next_retry_at"`
	CreatedAt             time.Time         `json:"created_at"`
}

// Delivery is the body POSTed to receivers. Data holds the resource under
// its name (shipping_channel, shipment or tracking_parcel) and, for a
// channel's or a shipment's status_changed, previous_status beside it.
type Delivery struct {
	ID        string         `json:"id"`
	CreatedAt time.Time      `json:"created_at"`
	Type      string         `json:"type"`
	Data      map[string]any `json:"data"`
}
