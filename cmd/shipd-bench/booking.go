package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"shipd/platform/config"
)

// bookings is how many shipments the booking part creates and books
// (-bookings).
var bookings = 3000

// defaultBookingConcurrency is BOOKING_CONCURRENCY as a user gets it: the
// configuration's own default.
func defaultBookingConcurrency() (int, error) {
	f, ok := reflect.TypeFor[config.Config]().FieldByName("BookingConcurrency")
	if !ok {
		return 0, fmt.Errorf("config.Config has no BookingConcurrency")
	}
	return strconv.Atoi(f.Tag.Get("envDefault"))
}

// benchBooking creates n shipments through the API of api (an instance that
// books nothing), then starts an instance that books them with the default
// BOOKING_CONCURRENCY against the sandbox carrier, and sets its bookings per
// second against the label renderer alone at the same concurrency.
func benchBooking(ctx context.Context, api *service, dsn string, n int, report *strings.Builder) error {
	concurrency, err := defaultBookingConcurrency()
	if err != nil {
		return err
	}
	// Shipments other parts left awaiting their booking (the writes part's)
	// are held back while this part runs: only its own are booked and timed.
	parked, release, err := parkBookings(ctx, api)
	if err != nil {
		return err
	}
	defer release()

	ids, created, err := createShipments(api, api.channel, 3<<40, n)
	if err != nil {
		return err
	}
	logf("booking: %d shipments created through the API at %.0f/s (%d others parked)", n, created, parked)
	if _, err := awaitNoEventLag(ctx, api); err != nil {
		return err
	}

	stopProfile, err := profilePhase("booking")
	if err != nil {
		return err
	}
	start, cpuBefore := time.Now(), processCPU()
	booker, err := startService(ctx, dsn, func(c *config.Config) { c.BookingConcurrency = concurrency })
	if err != nil {
		stopProfile()
		return err
	}
	for {
		var due int
		if err := api.db.GetContext(ctx, &due, `SELECT count(*) FROM shipments.shipments WHERE id = ANY($1) AND booking_due`, pq.Array(ids)); err != nil {
			stopProfile()
			booker.stop()
			return err
		}
		if due == 0 || ctx.Err() != nil {
			break
		}
		if time.Since(start) > 30*time.Minute {
			stopProfile()
			booker.stop()
			return fmt.Errorf("%d of %d shipments still await their booking after 30 min", due, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wall, cpu := time.Since(start), processCPU()-cpuBefore
	stopProfile()
	booker.stop()

	var outcome struct {
		Booked int       `db:"booked"`
		First  time.Time `db:"first"`
		Last   time.Time `db:"last"`
	}
	if err := api.db.GetContext(ctx, &outcome, `SELECT count(*) AS booked, min(l.created_at) AS first, max(l.created_at) AS last
		FROM shipments.shipments s JOIN shipments.labels l ON l.shipment_id = s.id
		WHERE s.id = ANY($1) AND s.status = 'created'`, pq.Array(ids)); err != nil {
		return err
	}
	if outcome.Booked != n {
		return fmt.Errorf("%d of %d shipments were booked with a label", outcome.Booked, n)
	}
	span := outcome.Last.Sub(outcome.First)
	rate := float64(n-1) / span.Seconds()

	limit, renderCPU, err := renderRate("pdf", 1, concurrency, renderDuration)
	if err != nil {
		return err
	}
	logf("booking: %d booked in %s (%.0f/s from the first label to the last); renderer alone %.0f/s: %.2fx",
		n, wall.Round(time.Millisecond), rate, limit, rate/limit)

	fmt.Fprintf(report, "## Booking worker against the renderer alone\n\n")
	fmt.Fprintf(report, "%d shipments (one parcel, PDF label) created through the API of the instance that books nothing\n", n)
	fmt.Fprintf(report, "(`BOOKING_CONCURRENCY=0`), its events then all handled; then a second instance starts with the default\n")
	fmt.Fprintf(report, "`BOOKING_CONCURRENCY=%d` and books them against the sandbox carrier: claim with a lease, book (the sandbox\n", concurrency)
	fmt.Fprintf(report, "renders the label), record the acceptance, merge and store the label and the events, in short transactions of\n")
	fmt.Fprintf(report, "their own; both instances handle the events. Shipments other parts left unbooked (%d) are held back meanwhile.\n", parked)
	fmt.Fprintf(report, "Bookings/s count from the first stored label to the last; the limit is the label renderer alone (render and\n")
	fmt.Fprintf(report, "merge one PDF label, no database) from as many goroutines as the worker's slots, measured right after.\n\n")
	fmt.Fprintf(report, "| figure | value |\n|---|---|\n")
	fmt.Fprintf(report, "| shipments created through the API | %d at %.0f/s |\n", n, created)
	fmt.Fprintf(report, "| booked, each with its label | %d in %.1f s from the booking instance's start |\n", outcome.Booked, wall.Seconds())
	fmt.Fprintf(report, "| booking worker | **%.0f bookings/s** |\n", rate)
	fmt.Fprintf(report, "| CPU time of the bench's process (both instances; PostgreSQL not counted) per booking | %s (%.0f %% of a core over the run) |\n",
		ms(cpu/time.Duration(n)), 100*cpu.Seconds()/wall.Seconds())
	fmt.Fprintf(report, "| renderer alone, PDF, 1 parcel, %d goroutines | %.0f labels/s, %s CPU each |\n", concurrency, limit, ms(renderCPU))
	fmt.Fprintf(report, "| booking worker / renderer limit | **%.2fx** |\n\n", rate/limit)
	return nil
}

// parkBookings gives every shipment awaiting its booking a thousand years
// more, so that a booking instance started after it books only the
// shipments created after it; release gives them their time back. It
// returns how many it held back.
func parkBookings(ctx context.Context, api *service) (int, func(), error) {
	var parked []string
	if err := api.db.SelectContext(ctx, &parked, `UPDATE shipments.shipments SET next_attempt_at = next_attempt_at + interval '1000 years'
		WHERE booking_due RETURNING id`); err != nil {
		return 0, nil, err
	}
	return len(parked), func() {
		if _, err := api.db.ExecContext(context.WithoutCancel(ctx), `UPDATE shipments.shipments
			SET next_attempt_at = next_attempt_at - interval '1000 years' WHERE id = ANY($1)`, pq.Array(parked)); err != nil {
			logf("giving the %d parked shipments their booking time back: %v", len(parked), err)
		}
	}, nil
}

// createShipments creates n one-parcel shipments of channel through s's API
// from writers goroutines, their references numbered from first, and
// returns their ids and the rate they were created at.
func createShipments(s *service, channel string, first int64, n int) ([]string, float64, error) {
	ids := make([]string, n)
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range writers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				status, body, err := s.do("POST", "/v1/shipments", shipmentJSON(channel, first+int64(i)))
				var created struct {
					Data struct {
						ID string `json:"id"`
					} `json:"data"`
				}
				if err == nil && status != 201 {
					err = fmt.Errorf("POST /v1/shipments: %d %s", status, body)
				}
				if err == nil {
					err = json.Unmarshal(body, &created)
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				ids[i] = created.Data.ID
			}
		})
	}
	wg.Wait()
	return ids, float64(n) / time.Since(start).Seconds(), firstErr
}
