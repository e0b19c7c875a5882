package pgstream

import (
	"context"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"shipd/platform/postgres"
)

// patientSubscriber subscribes again, with a growing pause, while the
// database is unavailable (restarting, or refusing connections because every
// slot is taken). Watermill's SQL subscriber begins a transaction to
// subscribe, and the router fails as a whole when one subscription fails, so
// an instance started during a moment of database trouble would otherwise
// exit instead of waiting it out.
type patientSubscriber struct {
	message.Subscriber
	log *slog.Logger
}

func (s patientSubscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	var ch <-chan *message.Message
	err := Patiently(ctx, s.log, "subscribing "+topic, func() error {
		var err error
		ch, err = s.Subscriber.Subscribe(ctx, topic)
		return err
	})
	return ch, err
}

// Patiently runs fn again, with a growing pause, while it fails because
// the database is unavailable: what a reader does before it reads (its
// subscription, its partitions' offsets rows) must wait out a moment of
// database trouble, or the router fails as a whole and the instance exits.
// The pause doubles from 100 ms up to maxPatientPause.
func Patiently(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	pause := 100 * time.Millisecond
	for {
		err := fn()
		if err == nil || !postgres.IsUnavailable(err) || ctx.Err() != nil {
			return err
		}
		log.WarnContext(ctx, what+": database unavailable; trying again", "err", err, "retry_in", pause.String())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, maxPatientPause)
	}
}

// maxPatientPause is the longest pause between Patiently's tries.
const maxPatientPause = 5 * time.Second
