package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The instances part's load (-instances-rate, -instances-duration); 0 takes
// the sweep's highest rate and its duration.
var (
	instancesRate     int
	instancesDuration time.Duration
)

// shareLimit is the most of a group's messages one of two instances may
// handle for the work to count as spread (issue 32).
const shareLimit = 0.65

// benchInstances offers one rate to two `shipd serve` processes on one
// database, the requests split between them in turn, beside one process
// alone, on each backbone, and reports the lags and each group's share of
// messages per instance.
func benchInstances(ctx context.Context, dsn string, sweeps sweepResults, report *strings.Builder) error {
	rate := instancesRate
	if rate == 0 {
		rate = slices.Max(sweepRates)
	}
	d := instancesDuration
	if d == 0 {
		d = durationAt(rate)
	}
	bin, cleanup, err := buildShipd(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	spec := loadSpec{rate: rate, duration: d, drainLimit: loadDrainLimit}
	type pair struct{ one, two *loadResult }
	runs := map[string]pair{}
	for _, bb := range loadBackbones {
		// The sweep's run at the same load is the one instance's.
		one := sweeps[bb.name][rate]
		if one == nil || one.spec != spec {
			if one, err = loadOnFleet(ctx, bin, dsn, bb, 1, spec); err != nil {
				return fmt.Errorf("%s, one instance: %w", bb.name, err)
			}
		}
		two, err := loadOnFleet(ctx, bin, dsn, bb, 2, spec)
		if err != nil {
			return fmt.Errorf("%s, two instances: %w", bb.name, err)
		}
		logf("instances: %s: %s", bb.name, describeShares(two))
		runs[bb.name] = pair{one, two}
	}

	fmt.Fprintf(report, "## Two instances beside one\n\n")
	fmt.Fprintf(report, "%d writes/s for %s as in the sweep, offered to two `shipd serve` processes on the same database (the second\n"+
		"started once the first had migrated it), the requests split between them in turn, beside one process alone. The\n"+
		"lags as in the sweep (the consumer groups' lag read from the first instance: it is the group's, whichever instance\n"+
		"tells it). Each group's share: the messages each instance's handlers ran on during the run\n"+
		"(`%s_count` by `handler_name` from each process's `/metrics`, successes and failures); spread means neither\n"+
		"instance above %.0f %%.\n\n", rate, durationOf(d), handledMetric, 100*shareLimit)
	for _, bb := range loadBackbones {
		p := runs[bb.name]
		fmt.Fprintf(report, "### %s\n\n", bb.name)
		writeLoadTable(report, "instances", func(yield func(string, *loadResult) bool) {
			_ = yield("one", p.one) && yield("two", p.two)
		})
		writeShares(report, p.one, p.two)
	}
	return nil
}

// writeShares writes each group's messages per instance of two, their
// shares, and what one instance alone handled under the same load: a
// total above it would be messages handled twice.
func writeShares(report *strings.Builder, one, two *loadResult) {
	fmt.Fprintf(report, "| consumer group | messages handled by instance 1 / 2 | shares | spread | one instance alone |\n|---|---|---|---|---|\n")
	for _, g := range handledGroups(two) {
		a, b := two.handled[0][g], two.handled[1][g]
		spread := "yes"
		if max(a, b)/(a+b) > shareLimit {
			spread = "**no**"
		}
		fmt.Fprintf(report, "| %s | %.0f / %.0f | %.0f %% / %.0f %% | %s | %.0f |\n", g, a, b, 100*a/(a+b), 100*b/(a+b), spread, one.handled[0][g])
	}
	fmt.Fprintf(report, "\nA split share alone does not mean the two worked at once: a group whose instances take turns at its lock\n"+
		"splits too. Whether the second instance added capacity shows in the lags above.\n\n")
}

// handledGroups are the groups that handled messages in the run.
func handledGroups(r *loadResult) []string {
	groups := map[string]bool{}
	for _, h := range r.handled {
		for g, n := range h {
			if n > 0 {
				groups[g] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(groups))
}

// describeShares is instance 1's share of each group, for the log.
func describeShares(r *loadResult) string {
	var parts []string
	for _, g := range handledGroups(r) {
		a, b := r.handled[0][g], r.handled[1][g]
		parts = append(parts, fmt.Sprintf("%s %.0f/%.0f", g, a, b))
	}
	return "messages handled by instance 1/2: " + strings.Join(parts, ", ")
}
