package messaging

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
)

// brokerSubscriber reads a module stream from the broker for one consumer
// group (ADR 0032): a durable JetStream consumer named after the group,
// shared by the group's subscribers in every instance (a queue group), with
// one message unacknowledged at a time, so the group sees the stream in its
// order whichever instance handles each message.
func (b *Bus) brokerSubscriber(consumerGroup, stream string) (message.Subscriber, error) {
	durable := durableName(consumerGroup)
	return wmnats.NewSubscriberWithNatsConn(b.config.Broker.conn, wmnats.SubscriberSubscriptionConfig{
		Unmarshaler:      &wmnats.NATSMarshaler{},
		SubscribersCount: 1,
		AckWaitTimeout:   brokerAckWait,
		CloseTimeout:     10 * time.Second,
		SubscribeTimeout: 30 * time.Second,
		SubjectCalculator: func(_, topic string) *wmnats.SubjectDetail {
			return &wmnats.SubjectDetail{Primary: BrokerSubject(topic), QueueGroup: durable}
		},
		NakDelay: wmnats.NewStaticDelay(100 * time.Millisecond),
		JetStream: wmnats.JetStreamConfig{
			DurableCalculator: func(string, string) string { return durable },
			SubscribeOptions: []nats.SubOpt{
				nats.BindStream(BrokerStream(stream)), nats.DeliverAll(), nats.AckExplicit(),
				nats.MaxAckPending(1), nats.AckWait(brokerAckWait),
			},
		},
	}, b.logger)
}

// brokerAckWait is how long JetStream waits for a message's
// acknowledgement before it delivers the message again. A crash of the
// server can lose a consumer's latest acknowledgement; the message is then
// delivered again after this wait, and, one message being unacknowledged
// at a time, its group waits that long (28 s at the PostgreSQL subscribers'
// 30 s deadline, measured after a kill -9 of nats-server). It must outlast
// a handler's transaction, which takes milliseconds.
const brokerAckWait = 10 * time.Second

// brokerTransactions gives each message read from the broker a transaction
// of its own, the one watermill-sql gives a batch read from PostgreSQL:
// handlers write in it (Tx), read models add to its batch, and it commits,
// batch written, before the message is acknowledged to the broker. A
// failed commit nacks the message, which comes again; its group then goes
// one by one, as on PostgreSQL.
type brokerTransactions struct {
	db           *sql.DB
	slots        chan struct{}
	flushTimeout time.Duration // bounds the batch writes at a commit
	mu           sync.Mutex
	state        map[string]*groupState // by consumer group
}

func (t *brokerTransactions) middleware(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		ctx := msg.Context()
		group := message.HandlerNameFromCtx(ctx)
		begin := groupBeginner{Beginner: watermillsql.BeginnerFromStdSQL(t.db), key: "consumer:broker/" + group,
			slots: t.slots, state: t.groupState(group)}
		tx, err := begin.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return nil, err
		}
		msg.SetContext(withSubscriberTx(ctx, tx))
		defer msg.SetContext(ctx)
		out, err := h(msg)
		if err != nil {
			_ = tx.Rollback()
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
		return out, nil
	}
}

func (t *brokerTransactions) groupState(group string) *groupState {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.state[group]
	if !ok {
		s = &groupState{flushTimeout: t.flushTimeout}
		t.state[group] = s
	}
	return s
}

// ConsumerLag is what one consumer group has not handled yet of its stream
// on the broker, and how old the oldest of it is.
type ConsumerLag struct {
	Group, Stream string
	Messages      int64
	Seconds       float64
}

// BrokerLag reads each consumer group's lag from its JetStream consumer:
// the messages not delivered yet and those delivered but not acknowledged,
// and the age of the first one after the acknowledged floor. Groups that
// have not subscribed yet are left out.
func (b *Bus) BrokerLag(ctx context.Context) ([]ConsumerLag, error) {
	if b.config.Broker == nil {
		return nil, nil
	}
	js := b.config.Broker.js
	var out []ConsumerLag
	for _, g := range b.groups {
		name := BrokerStream(g.stream)
		info, err := js.ConsumerInfo(name, durableName(g.name), nats.Context(ctx))
		if errors.Is(err, nats.ErrConsumerNotFound) || errors.Is(err, nats.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("consumer %s of %s: %w", g.name, name, err)
		}
		lag := ConsumerLag{Group: g.name, Stream: g.stream, Messages: int64(info.NumPending) + int64(info.NumAckPending)}
		if lag.Messages > 0 {
			if m, err := js.GetMsg(name, info.AckFloor.Stream+1, nats.Context(ctx)); err == nil {
				lag.Seconds = time.Since(m.Time).Seconds()
			}
		}
		out = append(out, lag)
	}
	return out, nil
}

// durableName is a consumer group's JetStream consumer (names allow no dots).
func durableName(group string) string { return brokerNames.Replace(group) }
