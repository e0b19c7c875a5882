package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// registerLoadFlags adds the flags of the load parts (sweep, instances,
// soak), each a fresh `shipd serve` fleet under paced writes.
func registerLoadFlags() {
	flag.Func("sweep-rates", "comma-separated writes/s the sweep offers, lowest first (default 50,100,200,300,400)", func(v string) error {
		var rates []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				return fmt.Errorf("not a rate: %q", f)
			}
			rates = append(rates, n)
		}
		slices.Sort(rates)
		sweepRates = rates
		return nil
	})
	flag.DurationVar(&sweepDuration, "sweep-duration", sweepDuration, "how long the sweep offers each rate")
	flag.DurationVar(&sweepTopDuration, "sweep-top-duration", sweepTopDuration, "how long the sweep offers its highest rate (0: twice -sweep-duration)")
	flag.DurationVar(&loadDrainLimit, "drain-limit", loadDrainLimit, "longest wait after a load's writes for its bookings, webhooks and consumer groups; what is left then is reported")
	flag.Func("backbones", "comma-separated backbones of the sweep and instances parts: postgresql, nats (default both)", func(v string) error {
		var chosen []backbone
		for _, name := range strings.Split(v, ",") {
			i := slices.IndexFunc(backbones, func(b backbone) bool { return b.flag == strings.TrimSpace(name) })
			if i < 0 {
				return fmt.Errorf("no backbone %q (postgresql, nats)", name)
			}
			chosen = append(chosen, backbones[i])
		}
		loadBackbones = chosen
		return nil
	})
	flag.IntVar(&instancesRate, "instances-rate", instancesRate, "writes/s offered to two instances and to one (0: the sweep's highest rate)")
	flag.DurationVar(&instancesDuration, "instances-duration", instancesDuration, "how long (0: as the sweep offers that rate)")
	flag.IntVar(&soakRate, "soak-rate", soakRate, "writes/s of the soak")
	flag.DurationVar(&soakDuration, "soak-duration", soakDuration, "how long the soak lasts")
}

// benchLoads runs the load parts asked for: the sweep, then two instances
// beside one (the sweep's run at that rate when there is one), then the soak.
func benchLoads(ctx context.Context, dsn string, wants func(string) bool, report *strings.Builder) error {
	var sweeps sweepResults
	if wants("sweep") {
		logf("sweep: rates %v on %d backbone(s)", sweepRates, len(loadBackbones))
		var err error
		if sweeps, err = benchSweep(ctx, dsn, report); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	if wants("instances") {
		if err := benchInstances(ctx, dsn, sweeps, report); err != nil {
			return fmt.Errorf("instances: %w", err)
		}
	}
	if wants("soak") {
		if err := benchSoak(ctx, dsn, report); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	}
	return nil
}
