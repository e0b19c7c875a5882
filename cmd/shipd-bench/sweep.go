package main

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"
)

// The sweep's settings (-sweep-rates, -sweep-duration, -sweep-top-duration,
// -drain-limit, -backbones).
var (
	sweepRates    = []int{50, 100, 200, 300, 400}
	sweepDuration = time.Minute
	// sweepTopDuration is how long the highest rate lasts; 0 is twice
	// sweepDuration: a backlog that grows shows more the longer it runs.
	sweepTopDuration time.Duration
	// drainLimit bounds the wait after a load's writes: what is left then
	// is reported, not waited for.
	loadDrainLimit = 3 * time.Minute
	// loadBackbones are the backbones the load parts run on.
	loadBackbones = backbones
)

// durationAt is how long the sweep offers a rate.
func durationAt(rate int) time.Duration {
	if rate < slices.Max(sweepRates) {
		return sweepDuration
	}
	if sweepTopDuration > 0 {
		return sweepTopDuration
	}
	return 2 * sweepDuration
}

// sweepResults is each backbone's load results by rate.
type sweepResults map[string]map[int]*loadResult

// benchSweep offers each rate to a fresh `shipd serve` on a fresh database,
// on each backbone, and reports every rate's lags and the sustainable rate.
func benchSweep(ctx context.Context, dsn string, report *strings.Builder) (sweepResults, error) {
	bin, cleanup, err := buildShipd(ctx)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	results := sweepResults{}
	for _, bb := range loadBackbones {
		results[bb.name] = map[int]*loadResult{}
		for _, rate := range sweepRates {
			r, err := loadOnFleet(ctx, bin, dsn, bb, 1, loadSpec{rate: rate, duration: durationAt(rate), drainLimit: loadDrainLimit})
			if err != nil {
				return nil, fmt.Errorf("%s at %d/s: %w", bb.name, rate, err)
			}
			results[bb.name][rate] = r
		}
	}
	fmt.Fprintf(report, "## Sweep: the work a shipment sets off, one instance\n\n")
	fmt.Fprintf(report, "For each rate, a fresh `shipd serve` process (the real binary, the default configuration: booking, tracking\n"+
		"and webhook workers on; only `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`, for the receiver on loopback) on a fresh\n"+
		"database (and, with NATS, a fresh JetStream). One merchant: a sandbox channel and one webhook subscription to\n"+
		"`shipment.created` pointing at a receiver on loopback that answers 204 at once. `POST /v1/shipments` offered on\n"+
		"a fixed clock (each in its own request, whatever the earlier ones take). %s\n\n", loadMethod())
	for _, bb := range loadBackbones {
		byRate := results[bb.name]
		fmt.Fprintf(report, "### %s\n\n", bb.name)
		writeLoadTable(report, "writes/s", func(yield func(string, *loadResult) bool) {
			for _, rate := range slices.Sorted(maps.Keys(byRate)) {
				if !yield(fmt.Sprintf("%d/s for %s", rate, durationOf(byRate[rate].spec.duration)), byRate[rate]) {
					return
				}
			}
		})
		writeGroupTable(report, byRate)
		fmt.Fprintf(report, "**Sustainable rate on %s: %s.**\n\n", bb.name, sustainable(byRate))
		fmt.Fprintf(report, "%s\n\n", coresNeeded(byRate))
		logf("sweep: sustainable rate on %s: %s", bb.name, sustainable(byRate))
	}
	return results, nil
}

// loadMethod says how a load run measures, for the report.
func loadMethod() string {
	return fmt.Sprintf("Measured from each write's 201: **list lag** until `GET /v1/shipments?search=<its reference>` shows it, "+
		"**booking lag** until `GET /v1/shipments/{id}` shows status `created` with its label, **tracking-start lag** until "+
		"`GET /v1/tracking-parcels?search=<its parcel's tracking number>` finds the parcel (%d writes a second followed, %s); "+
		"**webhook lag** until the receiver first saw that shipment's `shipment.created`, for every write. Lags are p50 / p99 / max; "+
		"a sample not seen within the drain limit (%s) of its 201 counts as never. Every consumer group's lag (`shipd_event_handler_lag_seconds` "+
		"and `_messages` from `/metrics`) is read every second during the writes (its worst: seconds / messages), then every 250 ms "+
		"until every group has caught up, every booking is done and every `shipment.created` has arrived, or the drain limit "+
		"(%s) after the writes has passed; a group's drain time is from the last write offered until its lag was 0 for good. RSS is "+
		"read from /proc every 100 ms from the first write to the end of that wait. **CPU per write** is the CPU time used "+
		"from the first write to the end of that wait (so bookings and deliveries after the writes count) divided by the writes answered "+
		"201: the shipd process, the PostgreSQL cluster (its postmaster with live and exited children), the bench's own process (the load, "+
		"probes and webhook receiver), and the whole machine's busy time from /proc/stat (NATS included); then how busy the machine was. A rate is sustainable when list lag p99 < %s; "+
		"booking, tracking-start and webhook lag p99 < %s with every sample seen and every webhook delivered; no group more than "+
		"%s behind at any sample during the writes; every group drained within %s; no write failed.",
		probesPerSecond, pollNote, durationOf(loadDrainLimit), durationOf(loadDrainLimit), dur(listLagTarget), dur(workLagTarget), dur(workLagTarget), dur(drainTarget))
}

// loadOnFleet runs one load on a fresh fleet of n instances.
func loadOnFleet(ctx context.Context, bin, dsn string, bb backbone, n int, spec loadSpec) (*loadResult, error) {
	logf("load: %s, %d instance(s), %d writes/s for %s", bb.name, n, spec.rate, spec.duration)
	f, err := startFleet(ctx, bin, dsn, bb, n)
	if err != nil {
		return nil, err
	}
	defer f.stop()
	r, err := runLoad(ctx, f, spec)
	if err != nil {
		return nil, err
	}
	logf("load: %s", r.summary())
	return r, nil
}

// summary is one line of the run for the log.
func (r *loadResult) summary() string {
	list, lu := r.probed(listStep)
	booking, bu := r.probed(bookingStep)
	tracked, tu := r.probed(trackedStep)
	return fmt.Sprintf("%.0f/s achieved; list %s; booking %s; tracking %s; webhook %s, %s; worst %s; slowest drain %s; targets missed: %s",
		r.writes.achieved(), spread(list, lu), spread(booking, bu), spread(tracked, tu), spread(lagsOf(r.webhooks), 0),
		r.delivered(), describeWorst(r.worstBehind(0, r.writesEnd)), r.slowestDrain(), strings.Join(r.misses(), "; "))
}

// sustainable is the highest rate that met every target.
func sustainable(byRate map[int]*loadResult) string {
	rates := slices.Sorted(maps.Keys(byRate))
	best := 0
	for _, rate := range rates {
		if len(byRate[rate].misses()) == 0 {
			best = rate
		}
	}
	if best == 0 {
		return fmt.Sprintf("below %d/s", rates[0])
	}
	return fmt.Sprintf("%d/s", best)
}

// coresNeeded says, from the CPU each write cost at the highest rate, how
// many of this machine's cores the highest rate would keep busy: whether a
// rate missed for want of CPU can be met on this machine at all.
func coresNeeded(byRate map[int]*loadResult) string {
	top := slices.Max(slices.Collect(maps.Keys(byRate)))
	r := byRate[top]
	each := r.cpu.busyPerWrite(r.created)
	return fmt.Sprintf("At %d/s each write cost %.1f ms of the machine's CPU time, all processes together (the bench's own included); "+
		"at that cost %d writes/s keep %.1f cores busy; this machine has %d.",
		top, float64(each)/float64(time.Millisecond), top, float64(top)*each.Seconds(), runtime.NumCPU())
}
