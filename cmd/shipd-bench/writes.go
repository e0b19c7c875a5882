package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

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

// writeRun is POST /v1/shipments against the raw-SQL baseline on one
// server configuration.
type writeRun struct {
	settings      string // the server's settings during the run
	api, baseline float64
	apiSettled    time.Duration // until the API run's events were all handled
	baseSettled   time.Duration // the same after the baseline
	template      writeTemplate // what each baseline operation wrote
}

// benchShipmentWrites compares POST /v1/shipments with a baseline that makes
// the same SQL writes directly, from the same number of concurrent writers,
// each on a settled system. nonDurable adds the same pair on the server
// with fsync, synchronous_commit and full_page_writes off (only ever on the
// bench's own cluster).
func benchShipmentWrites(ctx context.Context, s *service, d time.Duration, nonDurable bool, report *strings.Builder) error {
	var seq atomic.Int64
	durable, err := measureWrites(ctx, s, d, &seq)
	if err != nil {
		return err
	}
	runs := []writeRun{durable}
	if nonDurable {
		if err := setDurable(ctx, s.db, false); err != nil {
			return err
		}
		fast, err := measureWrites(ctx, s, d, &seq)
		// Back to the defaults whatever happened: the parts after this
		// one measure the durable server.
		if rerr := setDurable(ctx, s.db, true); rerr != nil {
			return rerr
		}
		if err != nil {
			return err
		}
		runs = append(runs, fast)
	}

	t := durable.template
	fmt.Fprintf(report, "## `POST /v1/shipments` throughput\n\n%d concurrent writers for %s each. The API request authenticates, counts\n", writers, d)
	fmt.Fprintf(report, "against the rate limit, checks every field, asks the channels module for the channel, and writes the shipment\n")
	fmt.Fprintf(report, "and its event in one transaction. The baseline makes the same writes with plain SQL: the same rate-limit\n")
	fmt.Fprintf(report, "upsert, then in one transaction the rows the API's own transaction wrote for a shipment it created in this\n")
	fmt.Fprintf(report, "run (found by that transaction's id), copied column by column with a new shipment id, reference and event\n")
	fmt.Fprintf(report, "id: %s. The measured instance runs with BOOKING_CONCURRENCY=0 (an API-only instance), so no carrier\n", t.describe())
	fmt.Fprintf(report, "booking or label rendering competes for the two cores; its event handlers project both runs' events.\n")
	fmt.Fprintf(report, "Each run starts on a settled system: every event written before it has been handled (the sum of\n")
	fmt.Fprintf(report, "`shipd_event_handler_lag_messages` is 0). Target: at least 0.6x the baseline.\n\n")
	fmt.Fprintf(report, "| server | `POST /v1/shipments` requests/s | raw SQL baseline requests/s | ratio | events handled after the API run / the baseline |\n|---|---|---|---|---|\n")
	for i, r := range runs {
		label := "durable (the settings above)"
		if i > 0 {
			label = "**non-durable, not a configuration to run**: " + r.settings + "; for comparison with reports made on such a server"
		}
		fmt.Fprintf(report, "| %s | %.0f | %.0f | **%.2fx** | %s / %s |\n", label, r.api, r.baseline, r.api/r.baseline,
			r.apiSettled.Round(time.Millisecond), r.baseSettled.Round(time.Millisecond))
	}
	fmt.Fprintln(report)
	return nil
}

// measureWrites runs the API and then the baseline, each after every event
// written before it has been handled.
func measureWrites(ctx context.Context, s *service, d time.Duration, seq *atomic.Int64) (writeRun, error) {
	var run writeRun
	var err error
	if run.settings, err = durabilitySettings(ctx, s.db); err != nil {
		return run, err
	}
	if _, err := awaitNoEventLag(ctx, s); err != nil {
		return run, err
	}
	stopProfile, err := profilePhase("writes")
	if err != nil {
		return run, err
	}
	var last atomic.Pointer[[]byte] // an answer of the run: the shipment the baseline copies
	run.api, err = throughput(d, func() error {
		status, body, err := s.do("POST", "/v1/shipments", shipmentJSON(s.channel, seq.Add(1)))
		if err == nil && status != 201 {
			err = fmt.Errorf("POST /v1/shipments: %d %s", status, body)
		}
		if err == nil {
			last.Store(&body)
		}
		return err
	})
	stopProfile()
	if err != nil {
		return run, err
	}
	logf("POST /v1/shipments (%s): %.0f/s", run.settings, run.api)
	if run.apiSettled, err = awaitNoEventLag(ctx, s); err != nil {
		return run, err
	}
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(*last.Load(), &created); err != nil {
		return run, err
	}
	if run.template, err = captureWrites(ctx, s.db, created.Data.ID); err != nil {
		return run, err
	}
	logf("baseline copies %s: %s", created.Data.ID, run.template.describe())

	var lastCopy atomic.Value
	run.baseline, err = throughput(d, func() error {
		id, err := run.template.replay(ctx, s.db, s.account, seq.Add(1))
		if err == nil {
			lastCopy.Store(id)
		}
		return err
	})
	if err != nil {
		return run, err
	}
	logf("raw SQL baseline: %.0f/s", run.baseline)
	if run.baseSettled, err = awaitNoEventLag(ctx, s); err != nil {
		return run, err
	}
	// The copies are events like the API's: the list projection took them.
	var listed bool
	if err := s.db.GetContext(ctx, &listed, `SELECT EXISTS (SELECT FROM shipments.shipment_list WHERE id = $1)`, lastCopy.Load()); err != nil {
		return run, err
	}
	if !listed {
		return run, fmt.Errorf("the baseline's shipment %s was not projected into the list: its event differs from the API's", lastCopy.Load())
	}
	return run, nil
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

// durabilityNames are the settings the non-durable run turns off.
var durabilityNames = []string{"fsync", "synchronous_commit", "full_page_writes"}

func durabilitySettings(ctx context.Context, db *sqlx.DB) (string, error) {
	var parts []string
	for _, name := range durabilityNames {
		var v string
		if err := db.GetContext(ctx, &v, `SELECT current_setting($1)`, name); err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("`%s` %s", name, v))
	}
	return strings.Join(parts, ", "), nil
}

// setDurable turns the durability settings off (false) or back to the
// server's defaults (true) and waits until a new session sees them. Back on,
// a checkpoint flushes what was written unflushed, so the next part starts
// from a clean disk state.
func setDurable(ctx context.Context, db *sqlx.DB, durable bool) error {
	want := "off"
	for _, name := range durabilityNames {
		stmt := "ALTER SYSTEM SET " + name + " = off"
		if durable {
			stmt, want = "ALTER SYSTEM RESET "+name, "on"
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if _, err := db.ExecContext(ctx, `SELECT pg_reload_conf()`); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var fsync, commit string
		err := postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
			return tx.QueryRowContext(ctx, `SELECT current_setting('fsync'), current_setting('synchronous_commit')`).Scan(&fsync, &commit)
		})
		if err != nil {
			return err
		}
		if fsync == want && commit == want {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server still has fsync %s, synchronous_commit %s 10 s after the reload", fsync, commit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if durable {
		_, err := db.ExecContext(ctx, `CHECKPOINT`)
		return err
	}
	return nil
}
