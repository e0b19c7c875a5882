package ports

import (
	"context"

	"github.com/jmoiron/sqlx"

	"shipd/modules/webhooks/app/command"
	"shipd/platform/messaging"
	"shipd/platform/usecase"
)

// fanOutBatch is the run of events one transaction of a fan-out group
// reads, in stream order: Add only collects them, and Write fans them out
// at once, as the transaction's first write, before its acknowledgement.
// Should that fail, the bus reads the same messages again and writes each
// as a run of its own, so the one at fault is set aside alone.
type fanOutBatch struct {
	fanOut usecase.CommandHandler[command.FanOutEvents]
	render map[string]func(messaging.Event) payload // by event type
	run    command.FanOutEvents
}

// Add takes the next event of the run with its message's id, the id every
// receiver sees.
func (b *fanOutBatch) Add(id string, e messaging.Event) {
	p := b.render[e.EventType()](e)
	b.run.Events = append(b.run.Events, command.PublicEvent{ID: id, Type: e.EventType(), AccountID: p.accountID, CreatedAt: p.at, Data: p.data})
}

// Write fans the run out; ctx runs the store's writes in the group's
// transaction (postgres.Within).
func (b *fanOutBatch) Write(ctx context.Context, _ *sqlx.Tx) error {
	return b.fanOut.Handle(ctx, b.run)
}
