package command_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
)

// One attempt that the receiver takes: the request is signed with the
// subscription's secret, the attempt logged, the delivery over.
func TestDeliverSignsSendsAndLogsASuccess(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_1", created, acme, "ch_1")
	due := f.claim(t)
	if len(due) != 1 {
		t.Fatalf("due %v", due)
	}
	f.clock.Advance(3 * time.Second) // the attempt is made (and stamped) later than the fan-out
	if err := f.deliver.Handle(t.Context(), command.DeliverWebhook{Delivery: due[0]}); err != nil {
		t.Fatal(err)
	}

	sent := f.sender.requests()
	if len(sent) != 1 {
		t.Fatalf("%d requests", len(sent))
	}
	r := sent[0]
	body := due[0].Body
	if r.URL != "https://hooks.example.com/wh_1" || string(r.Body) != string(body) || !strings.HasPrefix(r.LogID, "whl_") ||
		r.Header("X-Service-Delivery") != r.LogID || r.Header("Webhook-Id") != "evt_1" || r.Header("X-Service-Event") != created ||
		r.Header("X-Service-Signature") != domain.BodySignature([]byte("secret-wh_1"), body) ||
		r.Header("Webhook-Signature") != domain.StandardSignature([]byte("secret-wh_1"), "evt_1", r.Header("Webhook-Timestamp"), body) ||
		r.Header("Webhook-Timestamp") != "1795251603" {
		t.Fatalf("request %+v", r)
	}
	logs := f.logs(t, "wh_1")
	if len(logs) != 1 {
		t.Fatalf("%d logs", len(logs))
	}
	l := logs[0]
	if l.ID != r.LogID || l.Status != domain.LogSuccess || l.Attempt != 1 || l.ResponseStatus != 204 || l.DurationMS != 12 ||
		l.ErrorMessage != nil || l.NextRetryAt != nil || !l.CreatedAt.Equal(f.clock.Now()) || l.URL != r.URL ||
		l.RequestBody != string(body) || l.RequestHeaders["Webhook-Id"] != "evt_1" || l.EventID != "evt_1" {
		t.Fatalf("log %+v", l)
	}
	if d := f.store.Deliveries(); len(d) != 0 {
		t.Errorf("a delivered event is still owed: %+v", d)
	}
	if due := f.claim(t); len(due) != 0 {
		t.Errorf("due again: %+v", due)
	}
}

// A receiver that keeps failing is tried again at +5 min, +1 h, +6 h and
// +24 h from the first failure, however late each retry ran, then no
// more.
func TestDeliverRetriesOnTheScheduleThenGivesUp(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_1", created, acme, "ch_1")
	f.sender.answers(answering(503))
	offsets := []time.Duration{0, 5 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}
	for i, off := range offsets {
		if i > 0 {
			f.clock.Set(t0.Add(off - time.Second))
			if n := f.deliverDue(t); n != 0 {
				t.Fatalf("attempt %d made a second early", i+1)
			}
		}
		f.clock.Set(t0.Add(off))
		if i > 0 {
			f.clock.Advance(17 * time.Second) // the worker runs late
		}
		if n := f.deliverDue(t); n != 1 {
			t.Fatalf("attempt %d: %d made", i+1, n)
		}
		l := f.logs(t, "wh_1")[0]
		if l.Attempt != i+1 || l.Status != domain.LogFailed || l.ResponseStatus != 503 || l.ResponseBody != "busy" ||
			l.ErrorMessage == nil || *l.ErrorMessage != "the receiver answered HTTP 503" {
			t.Fatalf("attempt %d log %+v", i+1, l)
		}
		d := f.store.Deliveries()[0]
		if i+1 < len(offsets) {
			next := t0.Add(offsets[i+1])
			if l.NextRetryAt == nil || !l.NextRetryAt.Equal(next) || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(next) ||
				d.Attempts != i+1 || d.Outcome != domain.OutcomePending || !d.FirstFailedAt.Equal(t0) {
				t.Fatalf("attempt %d: log next %v, delivery %+v; want the next at %v", i+1, l.NextRetryAt, d, next)
			}
		} else if l.NextRetryAt != nil || d.NextAttemptAt != nil || d.Outcome != domain.OutcomeFailed {
			t.Fatalf("last attempt: log next %v, delivery %+v; want it failed for good", l.NextRetryAt, d)
		}
	}
	f.clock.Set(t0.Add(72 * time.Hour))
	if n := f.deliverDue(t); n != 0 || len(f.sender.requests()) != 5 {
		t.Fatalf("attempts after giving up: %d", len(f.sender.requests()))
	}
}

// A failure that is no answer is logged with its reason; a retry that
// succeeds ends the delivery.
func TestDeliverRetrySucceedsAfterNoAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_1", created, acme, "ch_1")
	f.sender.answers(func(context.Context, domain.Request) domain.Response {
		return domain.Response{Failure: "dial tcp: connection refused"}
	})
	f.deliverDue(t)
	f.sender.answers(nil)
	f.clock.Advance(5 * time.Minute)
	f.deliverDue(t)
	logs := f.logs(t, "wh_1")
	if len(logs) != 2 {
		t.Fatalf("%d logs", len(logs))
	}
	first, second := logs[1], logs[0]
	if first.Status != domain.LogFailed || first.ResponseStatus != 0 || first.ErrorMessage == nil ||
		*first.ErrorMessage != "dial tcp: connection refused" || first.NextRetryAt == nil {
		t.Errorf("first %+v", first)
	}
	if second.Status != domain.LogSuccess || second.Attempt != 2 || second.NextRetryAt != nil {
		t.Errorf("second %+v", second)
	}
	if d := f.store.Deliveries(); len(d) != 0 {
		t.Errorf("still owed: %+v", d)
	}
}

// A claim that found its subscription paused (the pause committed while
// the fan-out stored the delivery) ends the delivery unsent and unlogged.
func TestDeliverToAPausedSubscriptionCancels(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_1", created, acme, "ch_1")
	due := f.claim(t)[0]
	due.SubscriptionActive = false
	if err := f.deliver.Handle(t.Context(), command.DeliverWebhook{Delivery: due}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.sender.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if logs := f.logs(t, "wh_1"); len(logs) != 0 {
		t.Errorf("logs %+v", logs)
	}
	if d := f.store.Deliveries()[0]; d.Outcome != domain.OutcomeCancelled || d.NextAttemptAt != nil {
		t.Errorf("delivery %+v, want it cancelled", d)
	}
}

// A pause or delete while the attempt is in flight: the attempt is logged
// as it went, and the retry its failure would have scheduled is not.
func TestDeliverWhileTheSubscriptionIsPausedOrDeleted(t *testing.T) {
	t.Parallel()
	for name, meanwhile := range map[string]func(f *fixture, ctx context.Context) error{
		"paused": func(f *fixture, ctx context.Context) error {
			return f.update.Handle(ctx, command.UpdateSubscription{AccountID: acme, ID: "wh_1", Change: domain.Change{Active: new(false)}})
		},
		"deleted": func(f *fixture, ctx context.Context) error {
			return f.delete.Handle(ctx, command.DeleteSubscription{AccountID: acme, ID: "wh_1"})
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.subscribed(t, acme, "wh_1", created)
			f.happened(t, "evt_1", created, acme, "ch_1")
			f.sender.answers(func(ctx context.Context, _ domain.Request) domain.Response {
				if err := meanwhile(f, ctx); err != nil {
					t.Errorf("%s meanwhile: %v", name, err)
				}
				return domain.Response{Status: 502}
			})
			f.deliverDue(t)
			logs := f.logs(t, "wh_1")
			if len(logs) != 1 || logs[0].Status != domain.LogFailed || logs[0].ResponseStatus != 502 || logs[0].NextRetryAt != nil {
				t.Fatalf("logs %+v, want the failed attempt without a next retry", logs)
			}
			if d := f.store.Deliveries()[0]; d.Outcome != domain.OutcomeCancelled || d.NextAttemptAt != nil {
				t.Errorf("delivery %+v, want it cancelled", d)
			}
			f.clock.Advance(25 * time.Hour)
			if n := f.deliverDue(t); n != 0 {
				t.Errorf("%d attempts after the %s subscription's cancel", n, name)
			}
		})
	}
}

// A shutdown while the POST is in flight records nothing: the lease runs
// out and the attempt is made again.
func TestDeliverInterruptedRecordsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_1", created, acme, "ch_1")
	ctx, stop := context.WithCancel(t.Context())
	f.sender.answers(func(context.Context, domain.Request) domain.Response {
		stop()
		return domain.Response{Failure: "context canceled"}
	})
	err := f.deliver.Handle(ctx, command.DeliverWebhook{Delivery: f.claim(t)[0]})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	if logs := f.logs(t, "wh_1"); len(logs) != 0 {
		t.Errorf("logs %+v", logs)
	}
	if d := f.store.Deliveries()[0]; d.Attempts != 0 || d.Outcome != domain.OutcomePending {
		t.Errorf("delivery %+v", d)
	}
	f.sender.answers(nil)
	if n := f.deliverDue(t); n != 0 {
		t.Fatal("claimed again within its lease")
	}
	f.clock.Advance(lease + time.Second)
	if n := f.deliverDue(t); n != 1 || len(f.logs(t, "wh_1")) != 1 {
		t.Fatalf("after the lease: %d attempts, %d logs", n, len(f.logs(t, "wh_1")))
	}
}

func TestDeliverPassesOnTheStoresFailure(t *testing.T) {
	t.Parallel()
	for name, active := range map[string]bool{"an attempt": true, "a cancel": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.subscribed(t, acme, "wh_1", created)
			f.happened(t, "evt_1", created, acme, "ch_1")
			due := f.claim(t)[0]
			due.SubscriptionActive = active
			f.store.Interfere(failingOn("Record"))
			if err := f.deliver.Handle(t.Context(), command.DeliverWebhook{Delivery: due}); !errors.Is(err, errDatabase) {
				t.Fatalf("error %v, want the store's", err)
			}
		})
	}
}

// The purge takes what is older than 30 days: logs, the deliveries that
// are over, their events' bodies; the rest stays.
func TestPurgeDeliveryLogs(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.happened(t, "evt_old", created, acme, "ch_1")
	f.deliverDue(t)
	f.clock.Advance(20 * 24 * time.Hour)
	f.happened(t, "evt_new", created, acme, "ch_2")
	f.deliverDue(t)

	f.clock.Set(t0.Add(domain.LogRetention)) // the old log is exactly 30 days old: kept
	if err := f.purge.Handle(t.Context(), command.PurgeDeliveryLogs{}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.logs(t, "wh_1")); n != 2 {
		t.Fatalf("%d logs kept at 30 days, want 2", n)
	}
	f.clock.Advance(time.Second)
	if err := f.purge.Handle(t.Context(), command.PurgeDeliveryLogs{}); err != nil {
		t.Fatal(err)
	}
	logs := f.logs(t, "wh_1")
	if len(logs) != 1 || logs[0].EventID != "evt_new" || !strings.Contains(logs[0].RequestBody, "ch_2") {
		t.Fatalf("logs kept %+v, want the newer one with its body", logs)
	}
	f.store.Interfere(failingOn("Purge"))
	if err := f.purge.Handle(t.Context(), command.PurgeDeliveryLogs{}); !errors.Is(err, errDatabase) {
		t.Fatalf("failing store: %v", err)
	}
}
