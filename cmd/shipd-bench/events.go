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
// A group still behind drainLimit after the writes is named with what it
// had left, rather than waited for.
type eventFlow struct {
	events int64
	took   time.Duration
	left   map[string]float64 // by group, when not drained
}

// drainLimit bounds the wait for the consumer groups after the writes.
const drainLimit = 2 * time.Minute

func (f eventFlow) String() string {
	if len(f.left) > 0 {
		return fmt.Sprintf("%d events published; not every group had handled them %s after the writes (left: %s)",
			f.events, drainLimit, describeGroupLag(f.left))
	}
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
	after, err := streamEvents(ctx, s.db)
	if err != nil {
		return eventFlow{}, err
	}
	flow := eventFlow{events: after - before}
	if _, err := awaitNoEventLagWithin(ctx, s, drainLimit); err != nil {
		flow.left, _ = groupLag(s) // unread, the note says "not every group"
		return flow, nil
	}
	flow.took = time.Since(start)
	return flow, nil
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
