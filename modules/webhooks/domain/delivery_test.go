package domain_test

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"shipd/modules/webhooks/domain"
)

// Published examples: GitHub's webhook docs and the Standard Webhooks spec.
func TestSignaturesMatchPublishedExamples(t *testing.T) {
	if got, want := domain.BodySignature([]byte("It's a Secret to Everybody"), []byte("Hello, World!")),
		"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"; got != want {
		t.Errorf("BodySignature = %s, want %s", got, want)
	}
	key, _ := base64.StdEncoding.DecodeString("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if got, want := domain.StandardSignature(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`)),
		"v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("StandardSignature = %s, want %s", got, want)
	}
}

func pending(at time.Time) *domain.Delivery {
	return &domain.Delivery{ID: 1, SubscriptionID: "wh_1", EventID: "evt_1", EventType: "shipment.created",
		Body: []byte(`{}`), NextAttemptAt: &at, Outcome: domain.OutcomePending}
}

func attempt(d *domain.Delivery, at time.Time, status int) domain.Attempt {
	return domain.Attempt{Number: d.Attempts + 1, At: at, Request: domain.Request{LogID: "whl_x", URL: "https://example.com"},
		Result: domain.Response{Status: status}}
}

func TestRetriesMeasuredFromFirstFailure(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	d := pending(t0)
	// Attempts run late (a busy worker); the schedule still counts from t0.
	at := t0
	wants := []time.Duration{5 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}
	for i, off := range wants {
		log := d.Attempted(attempt(d, at, 500), true)
		if log.Status != domain.LogFailed || log.ErrorMessage == nil || *log.ErrorMessage != "the receiver answered HTTP 500" {
			t.Fatalf("attempt %d log = %+v", i+1, log)
		}
		if log.Attempt != i+1 || log.NextRetryAt == nil || !log.NextRetryAt.Equal(t0.Add(off)) {
			t.Fatalf("attempt %d: next retry %v, want %v", log.Attempt, log.NextRetryAt, t0.Add(off))
		}
		at = t0.Add(off).Add(17 * time.Second)
	}
	log := d.Attempted(attempt(d, at, 0), true)
	if log.NextRetryAt != nil || d.NextAttemptAt != nil || d.Outcome != domain.OutcomeFailed || log.Attempt != 5 {
		t.Fatalf("fifth failure: log %+v, delivery %+v", log, d)
	}
}

func TestSuccessfulRetryEndsDelivery(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	d := pending(t0)
	d.Attempted(attempt(d, t0, 302), true)
	log := d.Attempted(attempt(d, t0.Add(5*time.Minute), 204), true)
	if log.Status != domain.LogSuccess || log.ErrorMessage != nil || log.NextRetryAt != nil || d.Outcome != domain.OutcomeSuccess || d.NextAttemptAt != nil {
		t.Fatalf("log %+v delivery %+v", log, d)
	}
}

func TestRedirectAndNoAnswerAreFailures(t *testing.T) {
	t0 := time.Now()
	d := pending(t0)
	log := d.Attempted(attempt(d, t0, 301), true)
	if *log.ErrorMessage != "the receiver answered HTTP 301; redirects are not followed" {
		t.Errorf("301: %q", *log.ErrorMessage)
	}
	a := attempt(d, t0, 0)
	a.Result.Failure = "connection reset"
	log = d.Attempted(a, true)
	if log.ResponseStatus != 0 || *log.ErrorMessage != "connection reset" {
		t.Errorf("reset: %+v", log)
	}
}

func TestPausedSubscriptionEndsRetries(t *testing.T) {
	d := pending(time.Now())
	log := d.Attempted(attempt(d, time.Now(), 503), false)
	if log.NextRetryAt != nil || d.NextAttemptAt != nil || d.Outcome != domain.OutcomeCancelled {
		t.Fatalf("log %+v delivery %+v", log, d)
	}
}

func TestLateDuplicateAttemptChangesNothing(t *testing.T) {
	t0 := time.Now()
	d := pending(t0)
	stale := attempt(d, t0, 500) // number 1
	d.Attempted(attempt(d, t0, 500), true)
	before := *d
	log := d.Attempted(stale, true)
	if log.Attempt != 1 || d.Attempts != before.Attempts || !d.NextAttemptAt.Equal(*before.NextAttemptAt) {
		t.Fatalf("stale attempt changed the delivery: %+v", d)
	}
}

func TestSignedRequestHeaders(t *testing.T) {
	d := domain.Delivery{EventID: "evt_1", EventType: "shipment.created", Body: []byte(`{"a":1}`)}
	at := time.Unix(1700000000, 0)
	r := domain.SignedRequest(d, "https://example.com/h", "secret-123", "whl_9", at)
	want := map[string]string{
		"X-Service-Event": "shipment.created", "X-Service-Delivery": "whl_9", "X-Service-Timestamp": "1700000000",
		"Webhook-Id": "evt_1", "Webhook-Timestamp": "1700000000", "Content-Type": "application/json",
		"X-Service-Signature": domain.BodySignature([]byte("secret-123"), d.Body),
		"Webhook-Signature":   domain.StandardSignature([]byte("secret-123"), "evt_1", "1700000000", d.Body),
	}
	for k, v := range want {
		if r.Header(k) != v {
			t.Errorf("%s = %q, want %q", k, r.Header(k), v)
		}
	}
	for _, h := range r.Headers {
		if h.Name != http.CanonicalHeaderKey(h.Name) {
			t.Errorf("header %q is not in canonical form", h.Name)
		}
	}
}
