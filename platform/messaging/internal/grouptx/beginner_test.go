package grouptx

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"

	"shipd/platform/postgres/pgtest"
)

// A second subscriber transaction waits while the only slot is taken, and
// gets it once the first ends, however it ends.
func TestGroupBeginnerHoldsSubscribersToTheirSlots(t *testing.T) {
	db := pgtest.Open(t)
	b := Beginner{Beginner: watermillsql.BeginnerFromStdSQL(db.DB), Key: "consumer:test/slots",
		Slots: make(chan struct{}, 1), Group: &Group{FlushTimeout: time.Second, Log: slog.New(slog.DiscardHandler)}}
	first, err := b.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Std(first); !ok {
		t.Fatalf("a subscriber transaction %T is not seen as a standard one", first)
	}
	waiting, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.BeginTx(waiting, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second transaction began while the slot was taken: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		second, err := b.BeginTx(t.Context(), nil)
		if err == nil {
			err = second.Commit()
		}
		got <- err
	}()
	if err := first.Rollback(); err != nil {
		t.Fatal(err)
	}
	_ = first.Rollback() // a second end gives no second slot back
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the freed slot was not handed on")
	}
	if len(b.Slots) != 0 {
		t.Errorf("%d slots still taken after both transactions ended", len(b.Slots))
	}
}
