package main

import (
	"context"
	"os"
	"runtime/pprof"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/ids"
	"shipd/platform/postgres"
)

const writers = 8

func shipmentJSON(channel string, n int64) string {
	return fmt.Sprintf(`{"shipping_channel_id":%q,"reference_number":"BENCH-%d",
		"sender_contact":{"company_name":"Acme","email_address":"a@acme.test","phone_number":"+420111"},
		"recipient_contact":{"first_name":"Jana","last_name":"Nova","email_address":"j@x.test","phone_number":"+420222"},
		"origin_address":{"street_name":"A","house_number":"1","city_name":"Praha","postal_code":"11000","country_code":"CZ"},
		"destination_address":{"street_name":"B","house_number":"2","city_name":"Brno","postal_code":"60200","country_code":"CZ"},
		"parcels":[{"length_dimension":30,"width_dimension":20,"height_dimension":10,"weight_amount":1.5}]}`, channel, n)
}

// benchShipmentWrites compares POST /v1/shipments with a baseline that makes
// the same SQL writes directly: the shipment row and its outbox message in
// one transaction, from the same number of concurrent writers.
func benchShipmentWrites(ctx context.Context, s *service, d time.Duration, report *strings.Builder) error {
	var seq atomic.Int64
	if path := os.Getenv("BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	api, err := throughput(d, func() error {
		status, body, err := s.do("POST", "/v1/shipments", shipmentJSON(s.channel, seq.Add(1)))
		if err == nil && status != 201 {
			err = fmt.Errorf("POST /v1/shipments: %d %s", status, body)
		}
		return err
	})
	if err != nil {
		return err
	}
	logf("POST /v1/shipments: %.0f/s", api)
	pprof.StopCPUProfile()
	state, _ := json.Marshal(map[string]any{"reference_number": "BENCH", "parcels": []any{map[string]any{"weight_amount": 1.5}}})
	baseline, err := throughput(d, func() error {
		return postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
			now := time.Now().UTC()
			id := ids.New(ids.Shipment)
			if _, err := tx.ExecContext(ctx, `INSERT INTO shipments.shipments (id, account_id, channel_id, status, state, version,
				created_at, updated_at, booking_due, next_attempt_at) VALUES ($1, $2, $3, 'pending', $4, 1, $5, $5, false, $5)`,
				id, s.account, s.channel, state, now); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO "watermill_shipment.requested" (uuid, payload, metadata, transaction_id)
				VALUES ($1, $2, '{"name":"shipment.requested"}', pg_current_xact_id())`, ids.New(ids.Event), state)
			return err
		})
	})
	if err != nil {
		return err
	}
	logf("raw SQL baseline: %.0f/s", baseline)
	fmt.Fprintf(report, "## `POST /v1/shipments` throughput\n\n%d concurrent writers for %s each. The API request authenticates, counts\n", writers, d)
	fmt.Fprintf(report, "against the rate limit, checks every field, asks the channels module for the channel, and writes the shipment\n")
	fmt.Fprintf(report, "and its event in one transaction; the baseline performs the same two inserts directly. Booking (the carrier\n")
	fmt.Fprintf(report, "call) happens afterwards in the worker and is not part of either figure. Target: at least 0.4x the baseline.\n\n")
	fmt.Fprintf(report, "| writer | requests/s |\n|---|---|\n| `POST /v1/shipments` | %.0f |\n| raw SQL baseline | %.0f |\n\n", api, baseline)
	fmt.Fprintf(report, "Ratio: %.2fx the baseline.\n\n", api/baseline)
	return nil
}

// throughput runs op from writers goroutines for d and returns ops/s.
func throughput(d time.Duration, op func() error) (float64, error) {
	var n atomic.Int64
	var firstErr error
	var once sync.Once
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for range writers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if err := op(); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds(), firstErr
}
