package query_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"shipd/modules/webhooks/adapters/memory"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/app/query"
	"shipd/modules/webhooks/contract"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase/usecasetest"
)

// The webhook queries run on the in-memory store, with subscriptions,
// deliveries and logs made by the module's own commands.

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

const (
	acme    = "acc_acme"
	globex  = "acc_globex"
	created = "shipping_channel.created"
	updated = "shipping_channel.updated"
)

var errDatabase = errors.New("connection reset by peer")

// failing is a Sender whose receiver always answers 500.
type failing struct{}

func (failing) Send(context.Context, domain.Request) domain.Response {
	return domain.Response{Status: 500, Body: "oops", Duration: 30 * time.Millisecond}
}

type fixture struct {
	store *memory.Store
	clock *clock.Manual
}

func newFixture() *fixture {
	clk := clock.NewManual(t0)
	return &fixture{store: memory.NewStore(clk), clock: clk}
}

// subscribed makes an active subscription of account to events, a second
// after the last.
func (f *fixture) subscribed(t *testing.T, account, id string, events ...string) {
	t.Helper()
	f.clock.Advance(time.Second)
	err := command.NewCreateSubscriptionHandler(f.store, f.clock, usecasetest.Observer()).Handle(t.Context(), command.CreateSubscription{
		AccountID: account, SubscriptionID: id, Fields: domain.Fields{Name: id, URL: "https://hooks.example.com/" + id,
			Events: events, Secret: "secret-" + id, Active: true}})
	if err != nil {
		t.Fatal(err)
	}
}

// attempted fans out the event a second after the last change and makes
// its first attempts, which fail.
func (f *fixture) attempted(t *testing.T, eventID, eventType, account string) {
	t.Helper()
	obs := usecasetest.Observer()
	f.clock.Advance(time.Second)
	err := command.NewFanOutEventsHandler(f.store, f.clock, obs).Handle(t.Context(), command.FanOutEvents{Events: []command.PublicEvent{{
		ID: eventID, Type: eventType, AccountID: account, CreatedAt: f.clock.Now(), Data: map[string]any{"shipping_channel": map[string]any{"id": "ch_1"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	due, err := f.store.Claim(t.Context(), 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	deliver := command.NewDeliverWebhookHandler(f.store, failing{}, f.clock, obs)
	for _, d := range due {
		if err := deliver.Handle(t.Context(), command.DeliverWebhook{Delivery: d}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGetSubscription(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created, updated)
	f.subscribed(t, acme, "wh_deleted", created)
	if err := f.store.Delete(t.Context(), "wh_deleted", func(*domain.Subscription) error { return nil }); err != nil {
		t.Fatal(err)
	}
	get := query.NewGetSubscriptionHandler(f.store, usecasetest.Observer())

	got, err := get.Handle(t.Context(), query.GetSubscription{AccountID: acme, ID: "wh_1"})
	at := t0.Add(time.Second)
	want := contract.Subscription{ID: "wh_1", Name: "wh_1", URL: "https://hooks.example.com/wh_1", Events: []string{created, updated},
		Secret: contract.MaskedSecret, Active: true, CreatedAt: at, UpdatedAt: at}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v (%v), want %+v", got, err, want)
	}
	for _, tc := range []struct {
		q    query.GetSubscription
		kind fault.Kind
	}{
		{query.GetSubscription{AccountID: globex, ID: "wh_1"}, fault.KindForbidden},
		{query.GetSubscription{AccountID: acme, ID: "wh_missing"}, fault.KindNotFound},
		{query.GetSubscription{AccountID: acme, ID: "wh_deleted"}, fault.KindNotFound},
	} {
		if got, err := get.Handle(t.Context(), tc.q); !fault.Is(err, tc.kind) || got.ID != "" {
			t.Errorf("%+v: %+v (%v), want only a fault of kind %d", tc.q, got, err, tc.kind)
		}
	}
}

func TestListSubscriptions(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.subscribed(t, acme, "wh_2", created)
	f.subscribed(t, acme, "wh_3", created)
	f.subscribed(t, globex, "wh_4", created)
	list := query.NewListSubscriptionsHandler(f.store, usecasetest.Observer())
	for _, tc := range []struct {
		q     query.ListSubscriptions
		want  []string
		total int
	}{
		{query.ListSubscriptions{AccountID: acme, Limit: 10}, []string{"wh_3", "wh_2", "wh_1"}, 3},
		{query.ListSubscriptions{AccountID: acme, Offset: 1, Limit: 1}, []string{"wh_2"}, 3},
		{query.ListSubscriptions{AccountID: globex, Limit: 10}, []string{"wh_4"}, 1},
		{query.ListSubscriptions{AccountID: "acc_none", Limit: 10}, nil, 0},
	} {
		page, err := list.Handle(t.Context(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range page.Records {
			ids = append(ids, s.ID)
			if s.Secret != contract.MaskedSecret {
				t.Errorf("%s lists its secret", s.ID)
			}
		}
		if !slices.Equal(ids, tc.want) || page.Total != tc.total {
			t.Errorf("%+v: %v of %d, want %v of %d", tc.q, ids, page.Total, tc.want, tc.total)
		}
	}
	f.store.Interfere(func(string, string) error { return errDatabase })
	if _, err := list.Handle(t.Context(), query.ListSubscriptions{AccountID: acme, Limit: 10}); !errors.Is(err, errDatabase) {
		t.Errorf("failing store: %v", err)
	}
}

// The logs of a subscription are its account's only, even once it is
// deleted; the list filters by status and event type, newest first.
func TestListDeliveryLogs(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created, updated)
	f.subscribed(t, acme, "wh_2", created)
	f.attempted(t, "evt_1", created, acme)
	f.attempted(t, "evt_2", updated, acme)
	list := query.NewListDeliveryLogsHandler(f.store, usecasetest.Observer())
	events := func(q query.ListDeliveryLogs) ([]string, int, error) {
		page, err := list.Handle(t.Context(), q)
		var out []string
		for _, l := range page.Records {
			out = append(out, l.EventID)
		}
		return out, page.Total, err
	}
	for _, tc := range []struct {
		q     query.ListDeliveryLogs
		want  []string
		total int
	}{
		{query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_1", Limit: 10}, []string{"evt_2", "evt_1"}, 2},
		{query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_1", Limit: 1, Offset: 1}, []string{"evt_1"}, 2},
		{query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_1", Limit: 10, EventType: updated}, []string{"evt_2"}, 1},
		{query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_1", Limit: 10, Status: domain.LogSuccess}, nil, 0},
		{query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_2", Limit: 10}, []string{"evt_1"}, 1},
	} {
		got, total, err := events(tc.q)
		if err != nil || !slices.Equal(got, tc.want) || total != tc.total {
			t.Errorf("%+v: %v of %d (%v), want %v of %d", tc.q, got, total, err, tc.want, tc.total)
		}
	}

	// Another account's subscription is refused before any log is read.
	f.store.Interfere(func(op, _ string) error {
		if op == "ListDeliveryLogs" {
			return errDatabase
		}
		return nil
	})
	if _, _, err := events(query.ListDeliveryLogs{AccountID: globex, SubscriptionID: "wh_1", Limit: 10}); !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's: %v", err)
	}
	if _, _, err := events(query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_missing", Limit: 10}); !fault.Is(err, fault.KindNotFound) {
		t.Errorf("a missing subscription's: %v", err)
	}
	if _, _, err := events(query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_1", Limit: 10}); !errors.Is(err, errDatabase) {
		t.Errorf("failing store: %v", err)
	}
	f.store.Interfere(nil)

	if err := f.store.Delete(t.Context(), "wh_2", func(*domain.Subscription) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _, err := events(query.ListDeliveryLogs{AccountID: acme, SubscriptionID: "wh_2", Limit: 10}); err != nil || len(got) != 1 {
		t.Errorf("a deleted subscription's logs: %v (%v)", got, err)
	}
	if _, _, err := events(query.ListDeliveryLogs{AccountID: globex, SubscriptionID: "wh_2", Limit: 10}); !fault.Is(err, fault.KindForbidden) {
		t.Errorf("another account's deleted subscription's logs: %v", err)
	}
}

// One log reads as the API shows it: the request's headers and body, the
// answer, the error and the next retry, which a pause takes away.
func TestGetDeliveryLog(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.subscribed(t, acme, "wh_1", created)
	f.subscribed(t, acme, "wh_2", created)
	f.attempted(t, "evt_1", created, acme)
	logs, err := f.store.ListDeliveryLogs(t.Context(), query.ListDeliveryLogs{SubscriptionID: "wh_1", Limit: 10})
	if err != nil || len(logs.Records) != 1 {
		t.Fatalf("logs %+v (%v)", logs, err)
	}
	id := logs.Records[0].ID
	get := query.NewGetDeliveryLogHandler(f.store, usecasetest.Observer())

	got, err := get.Handle(t.Context(), query.GetDeliveryLog{AccountID: acme, SubscriptionID: "wh_1", ID: id})
	if err != nil {
		t.Fatal(err)
	}
	at := f.clock.Now()
	if got.ID != id || got.WebhookSubscriptionID != "wh_1" || got.EventID != "evt_1" || got.EventType != created ||
		got.Status != domain.LogFailed || got.URL != "https://hooks.example.com/wh_1" || got.ResponseStatus != 500 ||
		got.ResponseBody != "oops" || got.DurationMS != 30 || got.ErrorMessage == nil || *got.ErrorMessage != "the receiver answered HTTP 500" ||
		got.Attempt != 1 || got.NextRetryAt == nil || !got.NextRetryAt.Equal(at.Add(5*time.Minute)) || !got.CreatedAt.Equal(at) ||
		got.RequestHeaders["Webhook-Id"] != "evt_1" || got.RequestHeaders["X-Service-Delivery"] != id ||
		got.RequestBody != `{"id":"evt_1","created_at":"2026-11-21T09:00:03Z","type":"shipping_channel.created","data":{"shipping_channel":{"id":"ch_1"}}}` {
		t.Fatalf("log %+v", got)
	}

	for _, tc := range []struct {
		q    query.GetDeliveryLog
		kind fault.Kind
	}{
		{query.GetDeliveryLog{AccountID: globex, SubscriptionID: "wh_1", ID: id}, fault.KindForbidden},
		{query.GetDeliveryLog{AccountID: acme, SubscriptionID: "wh_missing", ID: id}, fault.KindNotFound},
		{query.GetDeliveryLog{AccountID: acme, SubscriptionID: "wh_1", ID: "whl_missing"}, fault.KindNotFound},
		{query.GetDeliveryLog{AccountID: acme, SubscriptionID: "wh_2", ID: id}, fault.KindNotFound}, // a sibling's log
	} {
		if got, err := get.Handle(t.Context(), tc.q); !fault.Is(err, tc.kind) || got.ID != "" {
			t.Errorf("%+v: %+v (%v), want only a fault of kind %d", tc.q, got, err, tc.kind)
		}
	}

	pause := command.NewUpdateSubscriptionHandler(f.store, f.clock, usecasetest.Observer())
	if err := pause.Handle(t.Context(), command.UpdateSubscription{AccountID: acme, ID: "wh_1", Change: domain.Change{Active: new(false)}}); err != nil {
		t.Fatal(err)
	}
	if got, err := get.Handle(t.Context(), query.GetDeliveryLog{AccountID: acme, SubscriptionID: "wh_1", ID: id}); err != nil || got.NextRetryAt != nil {
		t.Errorf("after a pause: next retry %v (%v), want none", got.NextRetryAt, err)
	}
}
