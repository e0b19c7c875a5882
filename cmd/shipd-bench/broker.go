package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

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
	lag := pacedShipmentWrites(s, lagDuration, &seq)
	logf("broker: read-model lag: %s; p50 %s, p99 %s", lag.describe(), pct(lag.lags, 50), pct(lag.lags, 99))
	quarters := lag.quarterP99s()
	fmt.Fprintf(report, "## The same process with NATS JetStream as the backbone\n\n")
	fmt.Fprintf(report, "As the read-model lag above, on a database of its own, with `EVENT_BROKER_URL` pointing at a `nats-server`\n"+
		"(JetStream on disk) started by the bench: the events are forwarded from the outbox to JetStream and the\n"+
		"consumer groups read them from there, one message in flight per group (ADR 0032).\n\n")
	fmt.Fprintf(report, "| figure | value |\n|---|---|\n")
	fmt.Fprintf(report, "| paced writes | %s |\n", lag.describe())
	fmt.Fprintf(report, "| read-model lag: 201 to the list showing it (%d samples) | p50 %s, p99 %s, max %s |\n",
		len(lag.lags), ms(pct(lag.lags, 50)), ms(pct(lag.lags, 99)), ms(pct(lag.lags, 100)))
	fmt.Fprintf(report, "| the same lag's p99 in each quarter of the %s, in order (flat or growing) | %s, %s, %s, %s |\n\n",
		lagDuration, ms(quarters[0]), ms(quarters[1]), ms(quarters[2]), ms(quarters[3]))
	return nil
}

// recreateDatabase drops and creates a database of the bench's cluster.
func recreateDatabase(ctx context.Context, admin *sqlx.DB, name string) error {
	if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
		return err
	}
	_, err := admin.ExecContext(ctx, `CREATE DATABASE `+name)
	return err
}
