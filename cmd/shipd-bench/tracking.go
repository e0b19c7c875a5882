package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"shipd/adapters/carriers/sandbox"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/config"
	"shipd/platform/ids"
)

// checkConcurrency is TRACKING_CONCURRENCY of the checking instance.
var checkConcurrency = 4

// seedDueParcels inserts n external tracking parcels of the bench channel,
// all due now, with their list rows, as creating them through the API would
// have. Their journeys started 0 to 40 hours ago, so checks find 1 to 7
// carrier events each and most of them change the status.
func seedDueParcels(ctx context.Context, s *service, n int) ([]string, []string, time.Time, error) {
	now := time.Now().UTC().Truncate(time.Second)
	idList, numbers, states, lists := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		created := now.Add(-time.Duration(i%41) * time.Hour)
		st := domain.Stored{
			ID: ids.NewAt(ids.TrackingParcel, created), AccountID: s.account, ChannelID: s.channel, Provider: sandbox.Code,
			TrackingNumber: sandbox.S10("SB", fmt.Sprintf("%d0%06d", []int{0, 1, 2, 3}[i%4], i), "CZ"),
			Status:         carrier.StatusCreated, CheckDelayHours: 6, MaxChecks: 20, NextCheckAt: &now,
			ExternalData: map[string]any{}, Version: 1, CreatedAt: created, UpdatedAt: created,
		}
		raw, err := json.Marshal(st)
		if err != nil {
			return nil, nil, now, err
		}
		summary, err := json.Marshal(command.Record(st).Summary())
		if err != nil {
			return nil, nil, now, err
		}
		idList[i], numbers[i], states[i], lists[i] = st.ID, st.TrackingNumber, string(raw), string(summary)
	}
	start := time.Now()
	_, err := s.db.ExecContext(ctx, `
		WITH src AS (SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::json[]) AS t(id, number, state, record)),
		parcels AS (
			INSERT INTO tracking.parcels (id, account_id, channel_id, tracking_number, state, version, next_check_at)
			SELECT id, $5, $6, number, state, 1, $7 FROM src)
		INSERT INTO tracking.parcel_list (id, account_id, version, deleted, status, channel_id, tracking_number, created_at, record)
		SELECT id, $5, 1, false, 'created', $6, number, (state->>'created_at')::timestamptz, record FROM src`,
		idList, numbers, states, lists, s.account, s.channel, now)
	if err != nil {
		return nil, nil, now, fmt.Errorf("seeding tracking parcels: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM ANALYZE tracking.parcels, tracking.parcel_list`); err != nil {
		return nil, nil, now, err
	}
	// The seed's WAL flushed now, not by a checkpoint in the middle of the checks.
	if _, err := s.db.ExecContext(ctx, `CHECKPOINT`); err != nil {
		return nil, nil, now, err
	}
	logf("seeded %d due tracking parcels in %s", n, time.Since(start).Round(time.Second))
	return idList, numbers, now, nil
}

// benchTrackingChecks seeds n due parcels, starts a second instance that
// checks them (the first one serves the API and checks nothing), and
// measures checks per second and, meanwhile, how long an edit made through
// the API takes to show in the list read model.
func benchTrackingChecks(ctx context.Context, api *service, dsn string, n int, report *strings.Builder) error {
	parcelIDs, numbers, due, err := seedDueParcels(ctx, api, n)
	if err != nil {
		return err
	}
	start := time.Now()
	checker, err := startService(ctx, dsn, func(c *config.Config) { c.TrackingConcurrency = checkConcurrency })
	if err != nil {
		return err
	}
	defer checker.stop()

	lags := make(chan pacedResult, 1)
	running, stopLag := context.WithCancel(ctx)
	go func() { lags <- sampleParcelListLag(running, api, parcelIDs, numbers) }()
	var left int
	for {
		// A checked parcel's next check is 6 h on: what is still due at the
		// seed time is unchecked (read from the schedule's index).
		if err := api.db.GetContext(ctx, &left, `SELECT count(*) FROM tracking.parcels WHERE next_check_at <= $1`, due); err != nil {
			stopLag()
			return err
		}
		if left == 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(start)
	stopLag()
	// The list read model has caught up when every row holds the parcel's version.
	caught := time.Now()
	for {
		var behind int
		if err := api.db.GetContext(ctx, &behind, `SELECT count(*) FROM tracking.parcels p JOIN tracking.parcel_list l USING (id)
			WHERE l.version < p.version`); err != nil {
			return err
		}
		if behind == 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	catchUp := time.Since(caught)
	lag := <-lags // the edits made until the last check, each until it showed
	var updates, changes int
	if err := api.db.GetContext(ctx, &updates, `SELECT count(*) FROM tracking.status_updates`); err != nil {
		return err
	}
	if err := api.db.GetContext(ctx, &changes, `SELECT count(*) FROM "watermill_tracking" WHERE metadata->>'name' = 'tracking_parcel.status_changed'`); err != nil {
		return err
	}
	rate := float64(n) / took.Seconds()
	logf("tracking: %d checks in %s (%.0f/s), list lag p50 %s p99 %s over %d samples (%s)", n, took.Round(time.Millisecond), rate,
		pct(lag.lags, 50), pct(lag.lags, 99), len(lag.lags), lag.describe())

	fmt.Fprintf(report, "## Tracking checks: %d due parcels against the sandbox carrier\n\n", n)
	fmt.Fprintf(report, "All parcels due at once (journeys 0-40 h old, so most checks record new carrier events and change the status).\n")
	fmt.Fprintf(report, "A second instance checks them (`TRACKING_CONCURRENCY=%d`): claim with `FOR UPDATE SKIP LOCKED` and a lease, call the\n", checkConcurrency)
	fmt.Fprintf(report, "sandbox outside any transaction, record updates and events in a new short transaction. Meanwhile the first\n")
	fmt.Fprintf(report, "instance takes an API edit (`PUT external_data`) of another parcel every %s on a fixed clock (each in its own\n", parcelEditEvery)
	fmt.Fprintf(report, "request, whatever the earlier ones take), until the last check is recorded; each edit is timed from its request\n")
	fmt.Fprintf(report, "until `GET /v1/tracking-parcels?search=<its number>` shows it (%s); every edit is\n", pollNote)
	fmt.Fprintf(report, "waited for, the last ones too.\n\n")
	fmt.Fprintf(report, "| figure | value |\n|---|---|\n")
	fmt.Fprintf(report, "| checks | %d in %.1f s: **%.0f checks/s** |\n", n, took.Seconds(), rate)
	fmt.Fprintf(report, "| status updates recorded / status changes published | %d / %d |\n", updates, changes)
	fmt.Fprintf(report, "| API edits during the run | %s |\n", lag.describe())
	fmt.Fprintf(report, "| read-model lag of an API edit during the run (%d samples) | p50 %s, p99 %s, max %s |\n", len(lag.lags), ms(pct(lag.lags, 50)), ms(pct(lag.lags, 99)), ms(pct(lag.lags, 100)))
	fmt.Fprintf(report, "| list read model catching up after the last check | %s |\n\n", ms(catchUp))
	return nil
}

// parcelEditEvery is the clock of the API edits made during the checks.
const parcelEditEvery = time.Second

// sampleParcelListLag edits another parcel through the API every
// parcelEditEvery until ctx ends, and times how long each edit takes to show
// in the list (search by its tracking number). Every edit started is waited
// for.
func sampleParcelListLag(ctx context.Context, s *service, parcelIDs, numbers []string) pacedResult {
	// A backlog of minutes is what this measures: no edit is given up on.
	p := paced{every: parcelEditEvery, probeEvery: 1, timeout: time.Hour,
		request: func(i int, _ bool) (time.Time, func() (bool, error), error) {
			k := (i * 7919) % len(numbers) // apart, and each parcel once while i < len(numbers)
			marker := fmt.Sprintf("m%d", i)
			from := time.Now()
			if _, err := s.call("PUT", "/v1/tracking-parcels/"+parcelIDs[k], `{"external_data":{"marker":"`+marker+`"}}`); err != nil {
				return from, nil, err
			}
			return from, func() (bool, error) {
				page, err := s.call("GET", "/v1/tracking-parcels?search="+numbers[k], "")
				if err != nil {
					return false, err
				}
				data, _ := page["data"].([]any)
				return len(data) == 1 && fmt.Sprint(data[0].(map[string]any)["external_data"]) == "map[marker:"+marker+"]", nil
			}, nil
		}}
	return p.runUntil(ctx.Done())
}

// pct is the p-th percentile of sorted durations (100: the largest).
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}
