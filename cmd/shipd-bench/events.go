package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// eventFlow is how many events a paced run published (every module stream,
// commands included) and how long from its start until every consumer
// group had handled them: events/s end to end, the slowest group included.
type eventFlow struct {
	events int64
	took   time.Duration
}

func (f eventFlow) String() string {
	return fmt.Sprintf("%d events in %s: **%.0f events/s**", f.events, f.took.Round(100*time.Millisecond), float64(f.events)/f.took.Seconds())
}

// measureEventFlow runs run (a paced write load), then waits until no
// consumer group has anything left, and counts what the streams gained.
func measureEventFlow(ctx context.Context, s *service, run func()) (eventFlow, error) {
	before, err := streamEvents(ctx, s.db)
	if err != nil {
		return eventFlow{}, err
	}
	start := time.Now()
	run()
	if _, err := awaitNoEventLagWithin(ctx, s, 10*time.Minute); err != nil {
		return eventFlow{}, err
	}
	took := time.Since(start)
	after, err := streamEvents(ctx, s.db)
	if err != nil {
		return eventFlow{}, err
	}
	return eventFlow{events: after - before, took: took}, nil
}

// streamEvents counts the messages of every module stream's table.
func streamEvents(ctx context.Context, db *sqlx.DB) (int64, error) {
	var tables []string
	if err := db.SelectContext(ctx, &tables, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'public' AND table_name LIKE 'watermill\_%' AND table_name NOT LIKE 'watermill\_offsets\_%'`); err != nil {
		return 0, err
	}
	var total int64
	for _, t := range tables {
		var n int64
		if err := db.GetContext(ctx, &n, `SELECT count(*) FROM "`+t+`"`); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
