package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/natstest"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// benchBroker measures the read-model lag of the `shipd serve` process as
// the process part does, with its events going through NATS JetStream
// (EVENT_BROKER_URL, ADR 0032) on a database of its own, beside the
// PostgreSQL backbone's figure from the same run.
func benchBroker(ctx context.Context, dsn string, report *strings.Builder) error {
	dir, err := os.MkdirTemp("", "shipd-bench-nats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	nats, err := natstest.Launch(dir)
	if err != nil {
		return err
	}
	defer nats.Stop()

	const database = "shipd_broker_bench"
	admin, err := postgres.Open(ctx, dsn, postgres.Pool{})
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := recreateDatabase(ctx, admin, database); err != nil {
		return err
	}
	bin, cleanup, err := buildShipd(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	s, _, stop, err := startProcess(ctx, bin, pgtest.WithDatabase(dsn, database), "EVENT_BROKER_URL="+nats.URL)
	if err != nil {
		return err
	}
	defer stop()
	defer s.db.Close()
	if _, err := awaitNoEventLag(ctx, s); err != nil {
		return err
	}
	var seq atomic.Int64
	seq.Store(2 << 40) // references of their own
	logf("broker: %d writes/s for %s through NATS JetStream", lagRate, lagDuration)
	var lag pacedLag
	var worst map[string]float64
	flow, err := measureEventFlow(ctx, s, func() { lag, worst = pacedShipmentWritesSampled(ctx, s, lagDuration, &seq) })
	if err != nil {
		return err
	}
	logf("broker: read-model lag: %s; p50 %s, p99 %s", lag.describe(), pct(lag.lags, 50), pct(lag.lags, 99))
	quarters := lag.quarterP99s()
	fmt.Fprintf(report, "## The same process with NATS JetStream as the backbone\n\n")
	fmt.Fprintf(report, "As the read-model lag above, on a database of its own, with `EVENT_BROKER_URL` pointing at a `nats-server`\n"+
		"(JetStream on disk) started by the bench: the events are forwarded from the outbox to JetStream and the\n"+
		"consumer groups read them from there in batches of up to 100 (ADR 0032).\n\n")
	fmt.Fprintf(report, "| figure | value |\n|---|---|\n")
	fmt.Fprintf(report, "| paced writes | %s |\n", lag.describe())
	fmt.Fprintf(report, "| read-model lag: 201 to the list showing it (%d samples) | p50 %s, p99 %s, max %s |\n",
		len(lag.lags), ms(pct(lag.lags, 50)), ms(pct(lag.lags, 99)), ms(pct(lag.lags, 100)))
	fmt.Fprintf(report, "| the same lag's p99 in each quarter of the %s, in order (flat or growing) | %s, %s, %s, %s |\n",
		lagDuration, ms(quarters[0]), ms(quarters[1]), ms(quarters[2]), ms(quarters[3]))
	fmt.Fprintf(report, "| most messages a consumer group was behind, `/metrics` every 5 s during those writes | %s |\n", describeGroupLag(worst))
	fmt.Fprintf(report, "| events end to end: published by those writes and their bookings, from the first write until every consumer group had handled them | %s |\n\n", flow)
	return nil
}

// sampleGroupLag reads shipd_event_handler_lag_messages by consumer group
// from /metrics every 5 s until ctx ends, and returns the most each group
// was behind.
func sampleGroupLag(ctx context.Context, s *service) map[string]float64 {
	worst := map[string]float64{}
	for {
		select {
		case <-ctx.Done():
			return worst
		case <-time.After(5 * time.Second):
		}
		now, err := groupLag(s)
		if err != nil {
			continue
		}
		for group, v := range now {
			worst[group] = max(worst[group], v)
		}
		logf("messages behind by group: %s", describeGroupLag(now))
	}
}

// groupLag reads shipd_event_handler_lag_messages by consumer group from
// /metrics.
func groupLag(s *service) (map[string]float64, error) {
	status, body, err := s.do(http.MethodGet, "/metrics", "")
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %d %v", status, err)
	}
	now := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "shipd_event_handler_lag_messages{") {
			continue
		}
		_, group, ok := strings.Cut(line, `consumer_group="`)
		group, _, _ = strings.Cut(group, `"`)
		group = groupOf(group)
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if ok && err == nil {
			now[group] += v
		}
	}
	return now, nil
}

// describeGroupLag lists the groups that were behind, most first.
func describeGroupLag(lag map[string]float64) string {
	groups := slices.Collect(maps.Keys(lag))
	slices.SortFunc(groups, func(a, b string) int { return cmp.Compare(lag[b], lag[a]) })
	var parts []string
	for _, g := range groups {
		if lag[g] > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f", g, lag[g]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// recreateDatabase drops and creates a database of the bench's cluster.
func recreateDatabase(ctx context.Context, admin *sqlx.DB, name string) error {
	if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
		return err
	}
	_, err := admin.ExecContext(ctx, `CREATE DATABASE `+name)
	return err
}
