package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
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
	// The baseline writes what a POST writes: the account's rate-limit
	// counter, then the shipment row and its shipment.requested message (a
	// real event, so the list projection treats both runs alike).
	sample, err := s.call("GET", "/v1/shipments/"+lastID(ctx, s), "")
	if err != nil {
		return err
	}
	record, _ := json.Marshal(sample["data"])
	baseline, err := throughput(d, func() error {
		now := time.Now().UTC().Truncate(time.Second)
		if _, err := s.db.ExecContext(ctx, `INSERT INTO platform.rate_limit_windows (account_id, window_start, count) VALUES ($1, $2, 1)
			ON CONFLICT (account_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1 RETURNING count`,
			s.account, now.Truncate(time.Minute)); err != nil {
			return err
		}
		return postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
			id := ids.New(ids.Shipment)
			rec := strings.Replace(string(record), sample["data"].(map[string]any)["id"].(string), id, 1)
			state := `{"id":"` + id + `","account_id":"` + s.account + `","status":"pending"}`
			if _, err := tx.ExecContext(ctx, `INSERT INTO shipments.shipments (id, account_id, channel_id, status, state, version,
				created_at, updated_at, booking_due, next_attempt_at) VALUES ($1, $2, $3, 'pending', $4, 1, $5, $5, false, $5)`,
				id, s.account, s.channel, state, now); err != nil {
				return err
			}
			payload := `{"account_id":"` + s.account + `","version":1,"occurred_at":"` + now.Format(time.RFC3339) + `","shipment":` + rec + `}`
			_, err := tx.ExecContext(ctx, `INSERT INTO "watermill_shipment.requested" (uuid, payload, metadata, transaction_id)
				VALUES ($1, $2, '{"name":"shipment.requested"}', pg_current_xact_id())`, ids.New(ids.Event), payload)
			return err
		})
	})
	if err != nil {
		return err
	}
	logf("raw SQL baseline: %.0f/s", baseline)
	fmt.Fprintf(report, "## `POST /v1/shipments` throughput\n\n%d concurrent writers for %s each. The API request authenticates, counts\n", writers, d)
	fmt.Fprintf(report, "against the rate limit, checks every field, asks the channels module for the channel, and writes the shipment\n")
	fmt.Fprintf(report, "and its event in one transaction; the baseline performs the same writes directly (rate-limit counter,\n")
	fmt.Fprintf(report, "shipment row, outbox message). The measured instance runs with BOOKING_CONCURRENCY=0 (an API-only\n")
	fmt.Fprintf(report, "instance), so no carrier booking or label rendering competes for the two cores. Target: at least 0.4x the baseline.\n\n")
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

// lastID returns the id of a shipment the API created, as a template.
func lastID(ctx context.Context, s *service) string {
	var id string
	_ = s.db.GetContext(ctx, &id, `SELECT id FROM shipments.shipments ORDER BY id DESC LIMIT 1`)
	return id
}
