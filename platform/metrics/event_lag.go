package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"shipd/platform/postgres"
)

// EventHandlerLag reports, per consumer group (one per event handler) and
// topic, how many published events the group has not processed yet and how
// old the oldest of them is. It reads Watermill's tables (owned by the
// platform) at scrape time in the subscribers' own order: every committed
// event after the group's acked (transaction id, offset).
type EventHandlerLag struct {
	db       *sqlx.DB
	messages *prometheus.Desc
	seconds  *prometheus.Desc
	dead     *prometheus.Desc

	mu      sync.Mutex
	query   string // one UNION ALL over every topic, built on first use
	sources []func(context.Context) ([]HandlerLag, error)
	// partitionOf is the partition of a stored message (over its metadata
	// column) when the groups read in partitions (ADR 0050); "" when not.
	partitionOf string
}

// Partitioned says the consumer groups read their topics in partitions:
// a partition group, named "<group>#<p>", lags by the messages after its
// offset that are its partition's, partitionOf being the partition of a
// stored message as its readers compute it (over the message's metadata
// column). Before the first scrape.
func (l *EventHandlerLag) Partitioned(partitionOf string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partitionOf = partitionOf
	l.query = ""
}

// AlsoFrom adds the lag of consumer groups that read elsewhere than
// PostgreSQL (the event broker's, ADR 0032), reported under the same names.
func (l *EventHandlerLag) AlsoFrom(source func(context.Context) ([]HandlerLag, error)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sources = append(l.sources, source)
}

// NewEventHandlerLag registers the lag metrics on reg.
func NewEventHandlerLag(reg prometheus.Registerer, db *sqlx.DB) *EventHandlerLag {
	l := &EventHandlerLag{db: db,
		messages: prometheus.NewDesc(namespace+"_event_handler_lag_messages",
			"Events published on a topic that a consumer group (event handler) has not processed yet.",
			[]string{"consumer_group", "topic"}, nil),
		seconds: prometheus.NewDesc(namespace+"_event_handler_lag_seconds",
			"Age of the oldest event a consumer group (event handler) has not processed yet; 0 when none waits.",
			[]string{"consumer_group", "topic"}, nil),
		dead: prometheus.NewDesc(namespace+"_event_dead_letters",
			"Messages a consumer group set aside after every try failed, waiting for `shipd events retry`.",
			[]string{"consumer_group"}, nil),
	}
	reg.MustRegister(l)
	return l
}

// Describe implements prometheus.Collector.
func (l *EventHandlerLag) Describe(ch chan<- *prometheus.Desc) {
	ch <- l.messages
	ch <- l.seconds
	ch <- l.dead
}

// Collect implements prometheus.Collector; a database that cannot answer
// leaves the lag out of the scrape, logged.
func (l *EventHandlerLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := l.measure(ctx)
	if err != nil {
		slog.Warn("metrics: event handler lag", "err", err)
		return
	}
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetric(l.messages, prometheus.GaugeValue, float64(r.Messages), r.Group, r.Topic)
		ch <- prometheus.MustNewConstMetric(l.seconds, prometheus.GaugeValue, r.Seconds, r.Group, r.Topic)
	}
	var dead []struct {
		Group string `db:"consumer_group"`
		N     int64  `db:"n"`
	}
	if err := l.db.SelectContext(ctx, &dead, `SELECT consumer_group, count(*) AS n FROM platform.dead_letters
		WHERE retried_at IS NULL GROUP BY consumer_group`); err != nil {
		slog.Warn("metrics: dead letters", "err", err)
		return
	}
	for _, d := range dead {
		ch <- prometheus.MustNewConstMetric(l.dead, prometheus.GaugeValue, float64(d.N), d.Group)
	}
}

// HandlerLag is one consumer group's lag on one topic.
type HandlerLag struct {
	Group    string  `db:"consumer_group"`
	Topic    string  `db:"topic"`
	Messages int64   `db:"messages"`
	Seconds  float64 `db:"seconds"`
}

func (l *EventHandlerLag) measure(ctx context.Context) ([]HandlerLag, error) {
	query, err := l.lagQuery(ctx)
	if err != nil {
		return nil, err
	}
	var rows []HandlerLag
	if query != "" {
		if err := postgres.SelectWithoutJIT(ctx, l.db, &rows, query); err != nil {
			return nil, err
		}
	}
	l.mu.Lock()
	sources := l.sources
	l.mu.Unlock()
	for _, source := range sources {
		more, err := source(ctx)
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
	return rows, nil
}

// lagQuery lists the topics that have consumer groups once; topics are made
// at start-up, so the list does not change while the process runs.
func (l *EventHandlerLag) lagQuery(ctx context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.query != "" {
		return l.query, nil
	}
	var tables []string
	if err := l.db.SelectContext(ctx, &tables, `SELECT tablename FROM pg_tables
		WHERE schemaname = current_schema() AND tablename LIKE 'watermill\_offsets\_%' ORDER BY tablename`); err != nil {
		return "", fmt.Errorf("listing event topics: %w", err)
	}
	parts := make([]string, 0, len(tables))
	for _, t := range tables {
		topic := strings.TrimPrefix(t, "watermill_offsets_")
		if topic == "" || strings.ContainsAny(topic, `"'`) {
			continue // topic names allow neither; never build SQL from one that does
		}
		// The row comparison is the subscribers' own "after the acked
		// position". Events they hold back because an older transaction is
		// still open (they read below pg_snapshot_xmin only) count too: they
		// are published and waiting, which is what lag means. A partition
		// group counts its partition's only.
		ofPartition := ""
		if l.partitionOf != "" {
			ofPartition = ` AND (o.consumer_group !~ '#[0-9]+$' OR ` + l.partitionOf + ` = substring(o.consumer_group FROM '#([0-9]+)$')::int)`
		}
		parts = append(parts, fmt.Sprintf(`SELECT o.consumer_group, '%[1]s' AS topic, count(m."offset") AS messages,
			coalesce(extract(epoch FROM localtimestamp - min(m.created_at)), 0)::float8 AS seconds
			FROM "watermill_offsets_%[1]s" o LEFT JOIN "watermill_%[1]s" m
			  ON (m.transaction_id, m."offset") > (o.last_processed_transaction_id, o.offset_acked)%[2]s
			GROUP BY o.consumer_group`, topic, ofPartition))
	}
	l.query = strings.Join(parts, "\nUNION ALL\n")
	return l.query, nil
}
