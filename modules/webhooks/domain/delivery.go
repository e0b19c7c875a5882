package domain

import (
	"fmt"
	"time"
)

// RetrySchedule is when a failed delivery is tried again, each offset
// measured from the first failure; after the last the delivery has failed
// for good.
var RetrySchedule = []time.Duration{5 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// LogRetention is how long attempt logs (and finished deliveries) are kept.
const LogRetention = 30 * 24 * time.Hour

// Delivery is one event owed to one subscription: the same body, signed
// afresh, on every attempt.
type Delivery struct {
	ID             int64
	SubscriptionID string
	AccountID      string
	EventID        string
	EventType      string
	ResourceID     string // the resource the event is about; empty for none
	Body           []byte
	Attempts       int        // attempts recorded so far
	FirstFailedAt  *time.Time // when the first attempt failed
	NextAttemptAt  *time.Time // nil once the delivery is over
	Outcome        Outcome
}

// Outcome is where a delivery stands.
type Outcome string

const (
	OutcomePending   Outcome = "pending"
	OutcomeSuccess   Outcome = "success"
	OutcomeFailed    Outcome = "failed" // every retry used up
	OutcomeCancelled Outcome = "cancelled"
)

// Response is what one attempt got back. Failure is empty when the receiver
// answered; otherwise it says why nothing usable came back (timeout, refused
// address, reset, TLS) and Status is 0.
type Response struct {
	Status   int
	Body     string
	Duration time.Duration
	Failure  string
}

// Log status values.
const (
	LogSuccess = "success"
	LogFailed  = "failed"
)

// LogEntry is the record of one attempt.
type LogEntry struct {
	ID             string
	SubscriptionID string
	AccountID      string
	DeliveryID     int64
	EventID        string
	EventType      string
	Status         string
	URL            string
	RequestHeaders []Header // the body is the event's, the same on every attempt
	ResponseStatus int
	ResponseBody   string
	DurationMS     int64
	ErrorMessage   *string
	Attempt        int
	NextRetryAt    *time.Time
	CreatedAt      time.Time
}

// Attempt is one signed POST made for the delivery.
type Attempt struct {
	Number  int // the attempt the worker made: Attempts+1 when it was claimed
	Request Request
	At      time.Time
	Result  Response
}

// Attempted records an attempt and schedules what follows: nothing after a
// success; after a failure the next offset of RetrySchedule from the first
// failure, or the end. subscriptionActive false (paused or deleted
// meanwhile) ends the delivery. An attempt whose number was already
// recorded (its lease ran out and another worker recorded it) is logged and
// changes nothing.
func (d *Delivery) Attempted(a Attempt, subscriptionActive bool) LogEntry {
	entry := LogEntry{
		ID: a.Request.LogID, SubscriptionID: d.SubscriptionID, AccountID: d.AccountID, DeliveryID: d.ID,
		EventID: d.EventID, EventType: d.EventType, URL: a.Request.URL, RequestHeaders: a.Request.Headers,
		ResponseStatus: a.Result.Status, ResponseBody: a.Result.Body,
		DurationMS: a.Result.Duration.Milliseconds(), Attempt: a.Number, CreatedAt: a.At,
	}
	failure := failureMessage(a.Result)
	if failure == "" {
		entry.Status = LogSuccess
	} else {
		entry.Status = LogFailed
		entry.ErrorMessage = &failure
	}
	if a.Number != d.Attempts+1 || d.NextAttemptAt == nil {
		return entry
	}
	d.Attempts = a.Number
	if failure == "" {
		d.finish(OutcomeSuccess)
		return entry
	}
	if d.FirstFailedAt == nil {
		at := a.At
		d.FirstFailedAt = &at
	}
	switch {
	case !subscriptionActive:
		d.finish(OutcomeCancelled)
	case d.Attempts > len(RetrySchedule):
		d.finish(OutcomeFailed)
	default:
		next := d.FirstFailedAt.Add(RetrySchedule[d.Attempts-1])
		d.NextAttemptAt = &next
		entry.NextRetryAt = &next
	}
	return entry
}

// Cancel ends a delivery whose subscription was paused or deleted.
func (d *Delivery) Cancel() { d.finish(OutcomeCancelled) }

func (d *Delivery) finish(o Outcome) {
	d.Outcome = o
	d.NextAttemptAt = nil
}

// failureMessage says why an attempt failed; empty means it succeeded (2xx).
func failureMessage(r Response) string {
	switch {
	case r.Failure != "":
		return r.Failure
	case r.Status >= 200 && r.Status < 300:
		return ""
	case r.Status >= 300 && r.Status < 400:
		return fmt.Sprintf("the receiver answered HTTP %d; redirects are not followed", r.Status)
	default:
		return fmt.Sprintf("the receiver answered HTTP %d", r.Status)
	}
}
