package command_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"shipd/modules/webhooks/adapters/memory"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/usecase"
	"shipd/platform/usecase/usecasetest"
)

// The webhook commands run here as the service runs them (decorated), on
// the in-memory store and a sender whose answers each test sets: no
// database, no HTTP.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

const (
	acme    = "acc_acme"
	globex  = "acc_globex"
	created = "shipping_channel.created"
	updated = "shipping_channel.updated"
	lease   = time.Minute
)

// sender is the Sender port: it remembers each request and answers as the
// test says (204 unless told otherwise).
type sender struct {
	mu     sync.Mutex
	sent   []domain.Request
	answer func(ctx context.Context, r domain.Request) domain.Response
}

func (s *sender) Send(ctx context.Context, r domain.Request) domain.Response {
	s.mu.Lock()
	s.sent = append(s.sent, r)
	answer := s.answer
	s.mu.Unlock()
	if answer == nil {
		return domain.Response{Status: 204, Duration: 12 * time.Millisecond}
	}
	return answer(ctx, r)
}

// answers makes every later request answer f.
func (s *sender) answers(f func(ctx context.Context, r domain.Request) domain.Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = f
}

func (s *sender) requests() []domain.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

func answering(status int) func(context.Context, domain.Request) domain.Response {
	return func(context.Context, domain.Request) domain.Response {
		return domain.Response{Status: status, Body: "busy"}
	}
}

type fixture struct {
	store   *memory.Store
	clock   *clock.Manual
	sender  *sender
	create  usecase.CommandHandler[command.CreateSubscription]
	update  usecase.CommandHandler[command.UpdateSubscription]
	delete  usecase.CommandHandler[command.DeleteSubscription]
	fanOut  usecase.CommandHandler[command.FanOutEvents]
	deliver usecase.CommandHandler[command.DeliverWebhook]
	purge   usecase.CommandHandler[command.PurgeDeliveryLogs]
}

func newFixture() *fixture {
	clk := clock.NewManual(t0)
	store := memory.NewStore(clk)
	s := &sender{}
	obs := usecasetest.Observer()
	return &fixture{store: store, clock: clk, sender: s,
		create:  command.NewCreateSubscriptionHandler(store, clk, obs),
		update:  command.NewUpdateSubscriptionHandler(store, clk, obs),
		delete:  command.NewDeleteSubscriptionHandler(store, obs),
		fanOut:  command.NewFanOutEventsHandler(store, clk, obs),
		deliver: command.NewDeliverWebhookHandler(store, s, clk, obs),
		purge:   command.NewPurgeDeliveryLogsHandler(store, clk, obs),
	}
}

// subscribed makes an active subscription id of account to events, at
// https://hooks.example.com/<id> with the secret "secret-<id>".
func (f *fixture) subscribed(t *testing.T, account, id string, events ...string) {
	t.Helper()
	if err := f.create.Handle(t.Context(), command.CreateSubscription{AccountID: account, SubscriptionID: id, Fields: domain.Fields{
		Name: id, URL: "https://hooks.example.com/" + id, Events: events, Secret: "secret-" + id, Active: true}}); err != nil {
		t.Fatalf("subscribing %s: %v", id, err)
	}
}

// stored puts in the store, as a repository may hold it, an active
// subscription id of account to events, which need not be the event types
// offered now (a subscription keeps those it chose), at
// https://hooks.example.com/<id> with the secret "secret-<id>", made at t0.
func (f *fixture) stored(t *testing.T, account, id string, events ...string) {
	t.Helper()
	sub := domain.Restore(domain.Stored{ID: id, AccountID: account, Name: id, URL: "https://hooks.example.com/" + id, Events: events,
		Secret: "secret-" + id, Active: true, Version: 1, CreatedAt: t0, UpdatedAt: t0})
	if err := f.store.Add(t.Context(), sub); err != nil {
		t.Fatalf("storing %s: %v", id, err)
	}
}

// happened fans out the event id of type about the channel channelID of
// account, at the clock's time.
func (f *fixture) happened(t *testing.T, id, eventType, account, channelID string) {
	t.Helper()
	if err := f.fanOut.Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{channelEvent(id, eventType, account, channelID, f.clock.Now())}}); err != nil {
		t.Fatalf("fanning out %s: %v", id, err)
	}
}

// channelEvent is the event id of type about the channel channelID of
// account, at at.
func channelEvent(id, eventType, account, channelID string, at time.Time) command.PublicEvent {
	return command.PublicEvent{ID: id, Type: eventType, AccountID: account, CreatedAt: at,
		Data: map[string]any{"shipping_channel": map[string]any{"id": channelID, "name": "Main"}}}
}

// claim leases what is due now, as a delivery worker does.
func (f *fixture) claim(t *testing.T) []command.DueDelivery {
	t.Helper()
	due, err := f.store.Claim(t.Context(), 100, lease)
	if err != nil {
		t.Fatal(err)
	}
	return due
}

// deliverDue claims what is due and makes each attempt; it returns how
// many it made.
func (f *fixture) deliverDue(t *testing.T) int {
	t.Helper()
	due := f.claim(t)
	for _, d := range due {
		if err := f.deliver.Handle(t.Context(), command.DeliverWebhook{Delivery: d}); err != nil {
			t.Fatalf("delivering %d: %v", d.ID, err)
		}
	}
	return len(due)
}

// logs are the subscription's attempt logs as the API reads them, newest
// first.
func (f *fixture) logs(t *testing.T, subscriptionID string) []contract.DeliveryLog {
	t.Helper()
	page, err := f.store.ListDeliveryLogs(t.Context(), query.ListDeliveryLogs{SubscriptionID: subscriptionID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return page.Records
}

func (f *fixture) subscription(t *testing.T, id string) *domain.Subscription {
	t.Helper()
	s, err := f.store.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("loading %s: %v", id, err)
	}
	return s
}

func failingOn(name string) func(op, id string) error {
	return func(op, _ string) error {
		if op == name {
			return errDatabase
		}
		return nil
	}
}

var errDatabase = errors.New("connection reset by peer")
