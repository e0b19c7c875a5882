package adapters_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/secrets"
)

// A run fanned out in a consumer group's transaction (postgres.Within)
// writes there, and signals the delivery workers with that transaction's
// commit: one rolled back leaves no delivery and wakes no one.
func TestAFanOutWritesAndSignalsWithTheTransactionItRunsIn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.NewDatabase(t)
	db, err := postgres.Open(ctx, dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	wake, err := messaging.NewWakeup(dsn, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wake.Close() })
	box, err := secrets.NewBox("a test key of at least thirty-two characters")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	sub, err := domain.NewSubscription("wh_1", "acc_1", domain.Fields{Name: "n", URL: "https://receiver.example.test/hook",
		Events: []string{"shipment.updated"}, Secret: "s3cret-s3cret", Active: true}, command.EventTypes, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := adapters.NewPostgresRepository(db, box, clk).Add(ctx, sub); err != nil {
		t.Fatal(err)
	}
	store := adapters.NewDeliveryStore(db, box, clk)
	run := []command.OutboundEvent{
		{ID: "evt_1", Type: "shipment.updated", AccountID: "acc_1", CreatedAt: clk.Now(), ResourceID: "sh_1", Body: []byte(`{}`)},
		{ID: "evt_2", Type: "shipment.updated", AccountID: "acc_1", CreatedAt: clk.Now(), ResourceID: "sh_1", Body: []byte(`{}`)},
	}
	inGroupTx := func(commit bool) {
		t.Helper()
		tx, err := db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		if n, err := store.FanOut(postgres.Within(ctx, db, tx), run, clk.Now()); err != nil || n != 2 {
			t.Fatalf("fanned out %d (%v), want 2", n, err)
		}
		if commit {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}

	due := wake.Next(command.DeliveriesDue)
	inGroupTx(false)
	// Notifications arrive in commit order: once a later one is here, the
	// rolled-back fan-out's would have been too.
	marker := wake.Next("test.marker")
	if err := postgres.InTx(ctx, db, func(tx *sqlx.Tx) error { return messaging.Notify(ctx, tx, "test.marker") }); err != nil {
		t.Fatal(err)
	}
	awaitClosed(t, marker, "the marker's signal")
	select {
	case <-due:
		t.Fatal("a rolled-back fan-out woke the delivery workers")
	default:
	}
	if n := deliveryCount(t, db); n != 0 {
		t.Fatalf("%d deliveries after the rollback, want none", n)
	}
	inGroupTx(true)
	awaitClosed(t, due, "the committed fan-out's signal")
	if n := deliveryCount(t, db); n != 2 {
		t.Fatalf("%d deliveries after the commit, want 2", n)
	}
}

func awaitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second): // a bound on waiting, not a claim of speed
		t.Fatalf("no %s", what)
	}
}

func deliveryCount(t *testing.T, db *sqlx.DB) int {
	t.Helper()
	var n int
	if err := db.GetContext(context.Background(), &n, `SELECT count(*) FROM webhooks.deliveries`); err != nil {
		t.Fatal(err)
	}
	return n
}
