package broker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"shipd/platform/messaging/internal/partition"
)

// brokerAckWait is how long JetStream waits for a message's
// acknowledgement before it delivers the message again. A crash of the
// server can lose a consumer's latest acknowledgements; those messages come
// again after this wait and are passed over (Reader), but the group
// waits that long for the ones after them, which JetStream holds back
// while a batch is unacknowledged. It must outlast a batch's transaction,
// which takes milliseconds.
const brokerAckWait = 10 * time.Second

// ConsumerLag is what one consumer group has not handled yet of its stream
// on the broker, and how old the oldest of it is.
type ConsumerLag struct {
	Group, Stream string
	Messages      int64
	Seconds       float64
}

// Group is a consumer group and the module stream it reads.
type Group struct{ Name, Stream string }

// Lag reads each consumer group's lag from its JetStream consumers, one per
// partition of partitions, each reported under its partition group's name
// (ADR 0050): the messages not delivered yet and those delivered but not
// acknowledged, and the age of the first one after the acknowledged floor.
// Groups that have not subscribed yet are left out.
func (b *Broker) Lag(ctx context.Context, groups []Group, partitions int) ([]ConsumerLag, error) {
	var out []ConsumerLag
	for _, g := range groups {
		for p := range max(partitions, 1) {
			name := PartitionStreamName(g.Stream, p, partitions)
			consumer, err := b.js.Consumer(ctx, name, durableName(g.Name))
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("consumer %s of %s: %w", g.Name, name, err)
			}
			info := consumer.CachedInfo() // as the lookup found it
			lag := ConsumerLag{Group: partition.Group(g.Name, p, partitions), Stream: g.Stream, Messages: int64(info.NumPending) + int64(info.NumAckPending)}
			if lag.Messages > 0 {
				lag.Seconds = oldestAge(ctx, b.js, name, info.AckFloor.Stream+1)
			}
			out = append(out, lag)
		}
	}
	return out, nil
}

// durableName is a consumer group's JetStream consumer (names allow no dots).
func durableName(group string) string { return brokerNames.Replace(group) }

// oldestAge is how long ago message seq of the JetStream stream was
// stored; 0 when the broker cannot say.
func oldestAge(ctx context.Context, js jetstream.JetStream, stream string, seq uint64) float64 {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return 0
	}
	m, err := s.GetMsg(ctx, seq)
	if err != nil {
		return 0
	}
	return time.Since(m.Time).Seconds()
}
