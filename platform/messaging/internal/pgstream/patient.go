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

const maxSubscribePause = 5 * time.Second

func (s patientSubscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	pause := 100 * time.Millisecond
	for {
		ch, err := s.Subscriber.Subscribe(ctx, topic)
		if err == nil || !postgres.IsUnavailable(err) || ctx.Err() != nil {
			return ch, err
		}
		s.log.WarnContext(ctx, "subscribing: database unavailable; trying again", "topic", topic, "err", err, "retry_in", pause.String())
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, maxSubscribePause)
	}
}
