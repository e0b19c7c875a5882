package adapters_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"

	"shipd/modules/tracking/adapters"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/messaging/outboxtest"
)

// A subscriber transaction's run of shipments (100, two parcels each) made
// as one AddAll, against the same parcels added one by one, each in a
// transaction of its own, as the command handler did before. Commits wait
// for the disk, as a durable consumer group's do: run it against a
// PostgreSQL that syncs (DATABASE_URL) for figures that mean anything.
func BenchmarkAddAll(b *testing.B) {
	const shipments, parcels = 100, 2
	db := outboxtest.Open(b, contract.Stream)
	if _, err := db.Exec(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = on', current_database()); END $$`); err != nil {
		b.Fatal(err)
	}
	db.SetMaxIdleConns(0) // the connections opened so far have the old setting
	db.SetMaxIdleConns(2)
	repo := adapters.NewPostgresRepository(db, messaging.NewOutbox(watermill.NopLogger{}))
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	run := 0
	newRun := func() []domain.Addition {
		run++
		var out []domain.Addition
		for s := range shipments {
			for n := range parcels {
				p := domain.NewForShipment(ids.NewAt(ids.TrackingParcel, now), "acc_1", "ch_1", "sandbox", fmt.Sprintf("sh_%d_%d", run, s),
					fmt.Sprintf("TN%d-%d-%d", run, s, n), domain.Recipient{Name: "Jana"}, false, now)
				out = append(out, domain.Addition{Parcel: p, Events: []domain.Event{contract.TrackingParcelCreated{
					TrackingParcelEvent: contract.TrackingParcelEvent{AccountID: "acc_1", Version: 1, OccurredAt: now}}}})
			}
		}
		return out
	}
	b.Run("one_run", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			additions := newRun()
			b.StartTimer()
			if _, err := repo.AddAll(b.Context(), additions); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*shipments*parcels)/b.Elapsed().Seconds(), "parcels/s")
	})
	b.Run("one_by_one", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			additions := newRun()
			b.StartTimer()
			for _, a := range additions {
				if err := repo.Add(b.Context(), a.Parcel, a.Events...); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N*shipments*parcels)/b.Elapsed().Seconds(), "parcels/s")
	})
}
