package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shipd/modules/tracking/adapters/memory"
	"shipd/modules/tracking/domain"
	"shipd/platform/clock"
)

// The repository's and the queue's contract is repositorytest's, run by
// repository_contract_test.go against these fakes and the PostgreSQL
// adapters alike; these are what only the fakes have: Leased, and
// interference.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// Leased tells a claimed parcel until its check is recorded; interference
// fails a call before anything changes.
func TestLeasedAndInterfered(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	queue := memory.NewCheckQueue(repo, clock.NewManual(t0))
	p, err := domain.New("tp_1", "acc_1", "fake", domain.Request{TrackingNumber: "TN1", ChannelID: "ch_1"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Add(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if claimed, err := queue.Claim(t.Context(), 10, time.Minute); err != nil || len(claimed) != 1 || !queue.Leased("tp_1") {
		t.Fatalf("claimed %d (%v), leased %v", len(claimed), err, queue.Leased("tp_1"))
	}
	repo.Interfere(func(string, []string) error { return context.Canceled })
	if _, err := repo.TrackedThrough(t.Context(), "acc_1", "ch_1"); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered TrackedThrough: %v", err)
	}
	if _, err := repo.Update(t.Context(), "tp_1", func(*domain.Parcel) ([]domain.Event, error) { return nil, nil }); !errors.Is(err, context.Canceled) || !queue.Leased("tp_1") {
		t.Errorf("interfered Update: %v, leased %v", err, queue.Leased("tp_1"))
	}
	repo.Interfere(nil)
	if _, err := repo.Update(t.Context(), "tp_1", func(*domain.Parcel) ([]domain.Event, error) { return nil, nil }); err != nil || queue.Leased("tp_1") {
		t.Errorf("a recorded check: %v, leased %v", err, queue.Leased("tp_1"))
	}
}
