package adapters_test

import (
	"context"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/jmoiron/sqlx"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/adapters/repositorytest"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/clock"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"

	tracking "shipd/modules/tracking/contract"
)

// repository is the PostgreSQL repository on a database of tb's own.
func repository(tb testing.TB) (*sqlx.DB, *adapters.PostgresRepository) {
	db := outboxtest.Open(tb, contract.Stream, tracking.CommandStream)
	return db, adapters.NewPostgresRepository(db, messaging.NewOutbox(watermill.NopLogger{}), clock.Real{})
}

// UpdateAll writes the booking columns as Update does: a booking still due
// keeps the worker's lease, one a change settled drops it; a shipment its
// changes left as it was is not written at all.
func TestUpdateAllKeepsALeaseWhileTheBookingIsDue(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, repo := repository(t)
	due, settled, untouched := repositorytest.Shipment(t, false), repositorytest.Shipment(t, false), repositorytest.Shipment(t, false)
	for _, sh := range []*domain.Shipment{due, settled, untouched} {
		if err := repo.Add(ctx, sh); err != nil {
			t.Fatal(err)
		}
	}
	if claimed, err := adapters.NewBookingQueue(db, clock.Real{}).Claim(ctx, 10, time.Hour); err != nil || len(claimed) != 3 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	written := func(id string) (xmin string) {
		if err := db.Get(&xmin, `SELECT xmin::text FROM shipments.shipments WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		return xmin
	}
	before := written(untouched.ID())
	err := repo.UpdateAll(ctx, []domain.Change{
		{ID: due.ID(), Apply: func(sh *domain.Shipment) []domain.Event { sh.Touch(time.Now()); return nil }},
		{ID: settled.ID(), Apply: func(sh *domain.Shipment) []domain.Event {
			if err := sh.Rejected([]domain.Problem{{Message: "refused"}}, time.Now()); err != nil {
				t.Error(err)
			}
			return nil
		}},
		{ID: untouched.ID(), Apply: func(*domain.Shipment) []domain.Event { return nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	booking := func(id string) (due, leased bool) {
		if err := db.QueryRow(`SELECT booking_due, lease_until IS NOT NULL FROM shipments.shipments WHERE id = $1`, id).Scan(&due, &leased); err != nil {
			t.Fatal(err)
		}
		return due, leased
	}
	if d, l := booking(due.ID()); !d || !l {
		t.Errorf("a booking still due: due %v, leased %v; want both", d, l)
	}
	if d, l := booking(settled.ID()); d || l {
		t.Errorf("a booking settled: due %v, leased %v; want neither", d, l)
	}
	if written(untouched.ID()) != before {
		t.Error("a shipment its change left as it was was written")
	}
}

// A consumer group's batch of 100 tracking news over 20 shipments, each
// news moving its shipment on and naming its update: written as one run
// (UpdateAll) and, as before, a news at a time in a transaction of its own.
func BenchmarkUpdateAll(b *testing.B) {
	ctx := context.Background()
	_, repo := repository(b)
	ids := make([]string, 20)
	for i := range ids {
		sh := repositorytest.Shipment(b, false)
		if err := repo.Add(ctx, sh); err != nil {
			b.Fatal(err)
		}
		ids[i] = sh.ID()
	}
	changes := make([]domain.Change, 100)
	for i := range changes {
		changes[i] = domain.Change{ID: ids[i%len(ids)], Apply: func(sh *domain.Shipment) []domain.Event {
			sh.Touch(time.Now())
			s := sh.Stored()
			return []domain.Event{contract.ShipmentUpdated{ShipmentEvent: contract.ShipmentEvent{AccountID: s.AccountID, Version: s.Version,
				OccurredAt: s.UpdatedAt, Shipment: contract.ShipmentSnapshot{ID: s.ID, Status: string(s.Status)}}}}
		}}
	}
	b.Run("as one run", func(b *testing.B) {
		for b.Loop() {
			if err := repo.UpdateAll(ctx, changes); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(changes)), "µs/news")
	})
	b.Run("a news at a time", func(b *testing.B) {
		for b.Loop() {
			for _, c := range changes {
				if _, err := repo.Update(ctx, c.ID, func(sh *domain.Shipment) ([]domain.Event, error) { return c.Apply(sh), nil }); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(changes)), "µs/news")
	})
}
