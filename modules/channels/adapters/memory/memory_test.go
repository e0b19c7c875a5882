package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"shipd/modules/channels/adapters/memory"
	"shipd/modules/channels/adapters/repositorytest"
	"shipd/modules/channels/app/query"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
)

// The repository's contract is repositorytest's, run by
// repository_contract_test.go against this fake and the PostgreSQL
// repository alike; these are what only the fakes have: interference, and
// the list built from the events.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// providers has the provider "test" of the contract suite: a number of
// retries and a secret token.
var providers = repositorytest.Providers

func ptr[T any](v T) *T { return &v }

func newChannel(t *testing.T, id, account, name string, at time.Time) *domain.Channel {
	t.Helper()
	ch, err := domain.NewChannel(id, account, name, "", "test", map[string]any{"retries": 3.0, "token": "x"}, providers, at)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func event(ch *domain.Channel) contract.ChannelEvent {
	return contract.ChannelEvent{AccountID: ch.AccountID(), Version: ch.Version(), OccurredAt: t0,
		ShippingChannel: contract.ShippingChannelSnapshot(ch.Snapshot())}
}

func added(t *testing.T, repo *memory.Repository, id, account, name string, at time.Time) {
	t.Helper()
	ch := newChannel(t, id, account, name, at)
	if err := repo.Add(t.Context(), ch, contract.ShippingChannelCreated{ChannelEvent: event(ch)}); err != nil {
		t.Fatal(err)
	}
}

// Interfere fails a call as a database might, before anything changes
// (what the contract suite, repositorytest, cannot ask of PostgreSQL).
func TestInterfereFailsACallAndChangesNothing(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	added(t, repo, "ch_1", "acc_1", "Main", t0)
	repo.Interfere(func(op, id string) error { return context.Canceled })
	if _, err := repo.Get(t.Context(), "ch_1"); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Get: %v", err)
	}
	if err := repo.Delete(t.Context(), "ch_1", func(*domain.Channel) ([]domain.Event, error) { return nil, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered Delete: %v", err)
	}
	repo.Interfere(nil)
	if _, err := repo.Get(t.Context(), "ch_1"); err != nil || len(repo.Published()) != 1 {
		t.Errorf("after interfering: %v, %d events", err, len(repo.Published()))
	}
}

// The list is built from the events, as the projection builds it: the
// highest version of each channel wins, a deleted one is gone, the
// account's channels only, filtered, newest first, then by id.
func TestChannelListIsTheProjectionOfTheEvents(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	list := memory.NewChannelList(repo)
	ctx := t.Context()
	added(t, repo, "ch_a", "acc_1", "A", t0)
	added(t, repo, "ch_c", "acc_1", "C", t0.Add(time.Second))
	added(t, repo, "ch_b", "acc_1", "B", t0.Add(time.Second))
	added(t, repo, "ch_x", "acc_2", "X", t0.Add(time.Hour))
	added(t, repo, "ch_gone", "acc_1", "Gone", t0.Add(time.Hour))
	if _, err := repo.Update(ctx, "ch_a", func(ch *domain.Channel) ([]domain.Event, error) {
		if err := ch.Edit(domain.Edit{Status: ptr(string(domain.StatusInactive))}, providers); err != nil {
			return nil, err
		}
		ch.Touch(t0.Add(time.Minute))
		return []domain.Event{contract.ShippingChannelStatusChanged{ChannelEvent: event(ch), PreviousStatus: "draft"}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Delete(ctx, "ch_gone", func(ch *domain.Channel) ([]domain.Event, error) {
		ch.Touch(t0.Add(time.Minute))
		return []domain.Event{contract.ShippingChannelDeleted{ChannelEvent: event(ch)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ids := func(q query.ListChannels) ([]string, int) {
		t.Helper()
		q.AccountID = "acc_1"
		page, err := list.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, rec := range page.Records {
			var c contract.ShippingChannel
			if err := json.Unmarshal(rec, &c); err != nil {
				t.Fatal(err)
			}
			if c.Settings["token"] != domain.MaskedSecret {
				t.Errorf("%s lists its secret: %v", c.ID, c.Settings)
			}
			out = append(out, c.ID+":"+c.Status)
		}
		return out, page.Total
	}
	for _, tc := range []struct {
		q     query.ListChannels
		want  []string
		total int
	}{
		{query.ListChannels{Limit: 10}, []string{"ch_c:draft", "ch_b:draft", "ch_a:inactive"}, 3},
		{query.ListChannels{Limit: 1, Offset: 1}, []string{"ch_b:draft"}, 3},
		{query.ListChannels{Limit: 10, Offset: 5}, nil, 3},
		{query.ListChannels{Limit: 10, Status: "inactive"}, []string{"ch_a:inactive"}, 1},
		{query.ListChannels{Limit: 10, Provider: "other"}, nil, 0},
	} {
		got, total := ids(tc.q)
		if !slices.Equal(got, tc.want) || total != tc.total {
			t.Errorf("%+v: %v of %d, want %v of %d", tc.q, got, total, tc.want, tc.total)
		}
	}
}
