package adapters_test

import (
	"context"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"

	"shipd"
	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/adapters/repositorytest"
	"shipd/modules/shipments/contract"
	"shipd/modules/shipments/domain"
	"shipd/platform/apptest"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"

	tracking "shipd/modules/tracking/contract"
)

// A booking's handle is saved though no event names it (nothing a client
// sees changed), the worker's lease on the booking is kept, and an update
// that changes nothing writes nothing.
func TestTheBookingHandleIsSavedWithoutAnEvent(t *testing.T) {
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithConfig(func(c *config.Config) { c.BookingConcurrency = 0 }))
	id := pendingShipment(t, env)
	ctx := context.Background()
	db := env.ModuleDB("shipments")
	if claimed, err := adapters.NewBookingQueue(db, clock.Real{}).Claim(ctx, 10, time.Minute); err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	repo := adapters.NewPostgresRepository(db, messaging.NewOutbox(watermill.NopLogger{}), clock.Real{})
	written := func() (xmin string) {
		if err := db.Get(&xmin, `SELECT xmin::text FROM shipments.shipments WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		return xmin
	}
	before := written()
	if _, err := repo.Update(ctx, id, func(*domain.Shipment) ([]domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if written() != before {
		t.Error("an update that changed nothing wrote the row")
	}
	if _, err := repo.Update(ctx, id, func(sh *domain.Shipment) ([]domain.Event, error) { return nil, sh.BookingAccepted("BATCH-7") }); err != nil {
		t.Fatal(err)
	}
	sh, err := repo.Get(ctx, id)
	if err != nil || sh.Stored().BookingHandle != "BATCH-7" || sh.Stored().Version != 1 {
		t.Fatalf("after recording the handle: %+v %v", sh.Stored(), err)
	}
	var leased bool
	if err := db.Get(&leased, `SELECT lease_until > now() AND booking_due FROM shipments.shipments WHERE id = $1`, id); err != nil || !leased {
		t.Errorf("the booking's lease was lost (%v)", err)
	}
}

// The PostgreSQL repository keeps the contract the app-layer tests' fake
// keeps (repositorytest).
func TestPostgresRepository(t *testing.T) {
	t.Parallel()
	repositorytest.Run(t, func(t *testing.T) repositorytest.Subject {
		db := outboxtest.Open(t, contract.Stream, tracking.CommandStream)
		return repositorytest.Subject{
			Repo:      adapters.NewPostgresRepository(db, messaging.NewOutbox(watermill.NopLogger{}), clock.Real{}),
			Published: outboxtest.FromStreams(db, contract.Stream),
			Sent:      outboxtest.FromStreams(db, tracking.CommandStream),
		}
	})
}
