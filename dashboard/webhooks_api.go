package dashboard

import "time"

// The webhook subscriptions and delivery logs of the /v1 API.

// apiWebhookSubscription is the API's subscription record.
type apiWebhookSubscription struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	Secret    string    `json:"secret"` // masked by the API
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// apiWebhookLog is the API's record of one delivery attempt.
type apiWebhookLog struct {
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
