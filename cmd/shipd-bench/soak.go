package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// The soak's load (-soak-rate, -soak-duration): issue 32's 20 minutes at
// 150 writes/s.
var (
	soakRate     = 150
	soakDuration = 20 * time.Minute
)

// flatFactor is how much the last quarter's figure may exceed the first's
// and still count as flat.
const flatFactor = 1.5

// benchSoak offers soakRate writes/s to one `shipd serve` on PostgreSQL for
// soakDuration and reports, per quarter of it, what must stay flat: RSS,
// every consumer group's lag and the webhook lag.
func benchSoak(ctx context.Context, dsn string, report *strings.Builder) error {
	bin, cleanup, err := buildShipd(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	r, err := loadOnFleet(ctx, bin, dsn, backbones[0], 1, loadSpec{rate: soakRate, duration: soakDuration, drainLimit: loadDrainLimit})
	if err != nil {
		return err
	}
	rows := soakRows(r)
	growing := 0
	for _, row := range rows {
		if !row.flat() {
			growing++
			logf("soak: %s grows: %s", row.name, row.describe())
		}
	}
	logf("soak: %d of %d figures flat", len(rows)-growing, len(rows))

	fmt.Fprintf(report, "## Soak: %d writes/s for %s\n\n", soakRate, durationOf(soakDuration))
	fmt.Fprintf(report, "One `shipd serve` process on PostgreSQL alone, set up as in the sweep (booking, tracking and webhooks on; one\n"+
		"webhook subscription to `shipment.created`, a receiver on loopback answering 204 at once). %s\n\n", loadMethod())
	fmt.Fprintf(report, "Each figure per quarter of the writes: RSS, the most a group was behind and the backlogs at the samples taken in\n"+
		"it, a lag's p99 over the writes offered in it. **Flat** when the last quarter's figure is at most %.1fx the first's,\n"+
		"or above it by no more than a floor that keeps noise near zero from counting as growth: 10 MiB of RSS, 250 ms of\n"+
		"lag, one second of writes (%d) of messages or backlog.\n\n", flatFactor, soakRate)
	fmt.Fprintf(report, "| figure | 1st quarter | 2nd | 3rd | 4th | flat |\n|---|---|---|---|---|---|\n")
	for _, row := range rows {
		flat := "yes"
		if !row.flat() {
			flat = "**no**"
		}
		fmt.Fprintf(report, "| %s | %s | %s |\n", row.name, row.describe(), flat)
	}
	fmt.Fprintf(report, "\n**%d of %d figures flat.** After the writes: webhooks %s; bookings done %s; slowest group drained %s.\n\n",
		len(rows)-growing, len(rows), r.delivered(), r.bookingsDone(), r.slowestDrain())
	return nil
}

// soakRow is one figure in each quarter of the writes.
type soakRow struct {
	name     string
	quarters [4]float64 // +Inf: a lag never seen
	floor    float64
	format   func(float64) string
}

// flat holds when the last quarter is within flatFactor of the first, or
// within the floor above it; a lag never seen in the last quarter is not.
func (row soakRow) flat() bool {
	first, last := row.quarters[0], row.quarters[3]
	return !math.IsInf(last, 1) && last <= max(flatFactor*first, first+row.floor)
}

func (row soakRow) describe() string {
	out := make([]string, 4)
	for i, v := range row.quarters {
		out[i] = "**never**"
		if !math.IsInf(v, 1) {
			out[i] = row.format(v)
		}
	}
	return strings.Join(out, " | ")
}

// soakRows reduces the run to its figures per quarter of the writes.
func soakRows(r *loadResult) []soakRow {
	q := r.writesEnd / 4
	lagFloor := 0.25
	asLag := func(v float64) string { return dur(seconds(v)) }
	asCount := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	quarterly := func(f func(from, to time.Duration) float64) (out [4]float64) {
		for i := range out {
			out[i] = f(time.Duration(i)*q, time.Duration(i+1)*q)
		}
		return out
	}
	rows := []soakRow{{name: "RSS peak", floor: 10, format: func(v float64) string { return fmt.Sprintf("%.1f MiB", v) },
		quarters: quarterly(func(from, to time.Duration) float64 { return r.rssPeakMiB(0, from, to) })}}
	rows = append(rows, soakRow{name: "webhook lag p99", floor: lagFloor, format: asLag,
		quarters: quarterly(func(from, to time.Duration) float64 {
			var in []probeLag
			for _, w := range r.webhooks {
				if w.offeredAt >= from && w.offeredAt < to {
					in = append(in, w)
				}
			}
			never := 0
			for _, at := range r.undelivered {
				if at >= from && at < to {
					never++
				}
			}
			return p99Seconds(lagsOf(in), never)
		})})
	for _, step := range []struct {
		name string
		at   func(*shipmentProbe) time.Duration
	}{{"list lag p99", listStep}, {"booking lag p99", bookingStep}, {"tracking-start lag p99", trackedStep}} {
		rows = append(rows, soakRow{name: step.name, floor: lagFloor, format: asLag,
			quarters: quarterly(func(from, to time.Duration) float64 {
				var lags []time.Duration
				never := 0
				for _, p := range r.probes {
					switch {
					case p.offeredAt < from || p.offeredAt >= to:
					case step.at(p) == 0:
						never++
					default:
						lags = append(lags, step.at(p))
					}
				}
				slices.Sort(lags)
				return p99Seconds(lags, never)
			})})
	}
	backlog := func(name string, of func(loadSample) int) soakRow {
		return soakRow{name: name, floor: float64(soakRate), format: asCount,
			quarters: quarterly(func(from, to time.Duration) float64 {
				most := 0
				for _, s := range r.samples {
					if s.at >= from && s.at < to {
						most = max(most, of(s))
					}
				}
				return float64(most)
			})}
	}
	rows = append(rows, backlog("most shipments awaiting their booking", func(s loadSample) int { return s.bookingsDue }),
		backlog("most shipment.created not yet received", func(s loadSample) int { return s.undelivered }))
	for _, g := range slices.Sorted(maps.Keys(r.worstBehind(0, r.writesEnd))) {
		rows = append(rows,
			soakRow{name: g + ": most seconds behind", floor: lagFloor, format: asLag,
				quarters: quarterly(func(from, to time.Duration) float64 { return r.worstBehind(from, to)[g].seconds })},
			soakRow{name: g + ": most messages behind", floor: float64(soakRate), format: asCount,
				quarters: quarterly(func(from, to time.Duration) float64 { return r.worstBehind(from, to)[g].messages })})
	}
	return rows
}

// p99Seconds is the p99 of sorted lags with never more that were never
// seen, counted as the longest: +Inf when the p99 falls among them.
func p99Seconds(seen []time.Duration, never int) float64 {
	n := len(seen) + never
	if n == 0 {
		return 0
	}
	if i := n * 99 / 100; i < len(seen) {
		return seen[i].Seconds()
	}
	return math.Inf(1)
}
