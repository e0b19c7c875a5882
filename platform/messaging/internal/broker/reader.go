package broker

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"shipd/platform/messaging/internal/grouptx"
)

// brokerBatch is how many messages a consumer group takes from the broker
// at once, and so how many may be unacknowledged: the size of the batches
// the PostgreSQL subscribers read.
const brokerBatch = 100

// Reader reads a module stream from the broker for one consumer group
// in batches (ADR 0032), as watermill-sql reads it from PostgreSQL: a batch
// is handled in one subscriber transaction (grouptx.Beginner: the group's
// advisory lock, a bounded slot), its messages passed to the router one at
// a time, and the transaction commits, the read models' writes and the
// group's stream position with it, before the batch is acknowledged.
//
// Every instance's reader of a group pulls from the same durable JetStream
// consumer. Holding the group's lock is a reader's turn: it pulls what the
// consumer has under the lock, without waiting, so no message of the group
// is in two readers' hands at once. An idle reader holds nothing: it waits
// for the forwarder's wake-up (Broker.wakeups) and then takes a turn. The
// position in platform.broker_offsets settles what a crash leaves: a
// reader applies only the message right after it, passes over (and
// acknowledges) what is at or before it, a redelivery whose acknowledgement
// was lost, and gives back what lies beyond a gap (messages a crashed
// reader held come back after the ack wait).
type Reader struct {
	broker    *Broker
	group     string // the consumer group; its partition is its JetStream stream
	stream    string // the module stream
	js        string // the JetStream stream of the group's partition
	offsetsAt string // the stream column of the group's row in platform.broker_offsets
	begin     grouptx.Beginner
	deadline  time.Duration // how long a handler may take with a message
	poll      time.Duration // how long an idle reader waits for a wake-up before it pulls anyway
	logger    watermill.LoggerAdapter

	closing   chan struct{}
	closeOnce sync.Once
	done      sync.WaitGroup
}

// NewReader is the reader of partition p of n of stream on broker for
// consumerGroup (with n = 1 the whole stream, as before partitions): a
// batch's transaction begun by begin, whose lock must be the partition's,
// deadline for a handler's answer, an idle reader asking the broker every
// poll. Each partition has its JetStream stream, its durable consumer there
// and its position, whose stream is that JetStream stream's name (the
// module stream's with n = 1).
func NewReader(broker *Broker, consumerGroup, stream string, p, n int, begin grouptx.Beginner, deadline, poll time.Duration, logger watermill.LoggerAdapter) *Reader {
	offsetsAt := stream
	if n > 1 {
		offsetsAt = PartitionStreamName(stream, p, n)
	}
	return &Reader{
		broker: broker, group: consumerGroup, stream: stream, js: PartitionStreamName(stream, p, n), offsetsAt: offsetsAt, begin: begin,
		deadline: deadline, poll: poll, logger: logger,
		closing: make(chan struct{}),
	}
}

// Subscribe starts reading. The router cancels ctx as it begins to close;
// the reader stops at Close instead, after the message in hand, so nothing
// is cut off mid-batch.
func (r *Reader) Subscribe(ctx context.Context, _ string) (<-chan *message.Message, error) {
	ctx = context.WithoutCancel(ctx)
	consumer, err := r.consumer(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan *message.Message)
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		defer close(out)
		r.run(ctx, consumer, out)
	}()
	return out, nil
}

// Close stops the reader once the message in hand is answered, and waits
// for it.
func (r *Reader) Close() error {
	r.closeOnce.Do(func() { close(r.closing) })
	r.done.Wait()
	return nil
}

func (r *Reader) closed() bool {
	select {
	case <-r.closing:
		return true
	default:
		return false
	}
}

// pause waits d, or less if the reader closes; it reports whether to go on.
func (r *Reader) pause(d time.Duration) bool {
	select {
	case <-r.closing:
		return false
	case <-time.After(d):
		return true
	}
}

func (r *Reader) run(ctx context.Context, consumer jetstream.Consumer, out chan<- *message.Message) {
	wake, stop := r.broker.wakeups(r.stream)
	defer stop()
	busy := true // look at once when starting
	for !r.closed() {
		if !busy {
			// Idle: wait for the forwarder to say it stored more, or the
			// poll interval at most (a wake-up lost to a reconnect), when
			// the broker is asked, not PostgreSQL, whether a turn is due.
			select {
			case <-r.closing:
				return
			case <-wake:
			case <-time.After(r.poll):
				if !r.due(ctx, consumer) {
					continue
				}
			}
		}
		n, err := r.turn(ctx, consumer, out)
		if err != nil {
			if !r.recover(ctx, &consumer, err) {
				return
			}
			busy = false
			continue
		}
		busy = n > 0
	}
}

// due reports whether the consumer has messages to deliver or waiting for
// an acknowledgement (a crashed reader's, due again after the ack wait);
// when the broker cannot say, a turn finds out.
func (r *Reader) due(ctx context.Context, consumer jetstream.Consumer) bool {
	info, err := consumer.Info(ctx)
	return err != nil || info.NumPending > 0 || info.NumAckPending > 0
}

// recover pauses after a failure and makes the consumer again if it is
// gone (deleted, or its stream made again); false when the reader closed.
func (r *Reader) recover(ctx context.Context, consumer *jetstream.Consumer, failure error) bool {
	r.logger.Info("reading from the event broker failed; trying again", watermill.LogFields{"consumer_group": r.group, "err": failure.Error()})
	pause := time.Second // the broker away
	if r.broker.conn.IsConnected() {
		pause = 100 * time.Millisecond
	}
	if !r.pause(pause) {
		return false
	}
	if !consumerGone(failure) {
		return true
	}
	c, err := r.consumer(ctx)
	if err != nil {
		return false
	}
	*consumer = c
	return true
}

func consumerGone(err error) bool {
	return errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) ||
		errors.Is(err, nats.ErrNoResponders)
}

// collect reads a pull's messages; a pull that found none is no error.
func collect(batch jetstream.MessageBatch, err error) ([]jetstream.Msg, error) {
	if err != nil {
		return nil, err
	}
	var msgs []jetstream.Msg
	for m := range batch.Messages() {
		msgs = append(msgs, m)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, jetstream.ErrNoMessages) {
		return msgs, err
	}
	return msgs, nil
}

// turn is the group's turn, under its lock: it takes what the consumer
// has, up to a batch, applies it in one transaction and acknowledges what
// it applied or passed over; the rest goes back to the broker. It returns
// how many messages it applied or passed over, and an error when it could
// not take its turn.
func (r *Reader) turn(ctx context.Context, consumer jetstream.Consumer, out chan<- *message.Message) (int, error) {
	tx, err := r.begin.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return 0, fmt.Errorf("beginning a batch's transaction: %w", err)
	}
	// A pull that ends in a status after some messages (the group's limit
	// of unacknowledged messages reached, say) still gives those.
	msgs, pullErr := collect(consumer.FetchNoWait(brokerBatch))
	if len(msgs) == 0 {
		_ = tx.Rollback()
		return 0, pullErr
	}
	applied, err := r.position(ctx, tx, consumer)
	if err != nil {
		_ = tx.Rollback()
		giveBack(msgs)
		return 0, fmt.Errorf("reading the group's position: %w", err)
	}
	rest := inStreamOrder(msgs)
	var passed, handled []jetstream.Msg
	for len(rest) > 0 && !r.closed() {
		m := rest[0]
		seq := sequence(m)
		if seq <= applied {
			passed = append(passed, m)
			rest = rest[1:]
			continue
		}
		if seq != applied+1 {
			break // what comes before it was held by a reader that crashed: due again after the ack wait
		}
		answer, err := r.pass(ctx, tx, m, out)
		if err != nil {
			r.logger.Error("a message from the event broker was not answered", err, watermill.LogFields{"consumer_group": r.group, "stream_sequence": seq})
		}
		if answer == closing {
			break
		}
		if answer != acked {
			// Nothing of this transaction stands.
			_ = tx.Rollback()
			ackAll(passed)
			giveBack(handled, rest)
			return 0, fmt.Errorf("message %d of the stream was not handled", seq)
		}
		handled = append(handled, m)
		applied = seq
		rest = rest[1:]
	}
	if len(handled) == 0 {
		_ = tx.Rollback()
		ackAll(passed)
		giveBack(rest)
		return len(passed), nil
	}
	if err := r.advance(ctx, tx, applied); err != nil {
		_ = tx.Rollback()
		ackAll(passed)
		giveBack(handled, rest)
		return 0, fmt.Errorf("storing the group's position: %w", err)
	}
	if err := tx.Commit(); err != nil {
		ackAll(passed)
		giveBack(handled, rest)
		return 0, fmt.Errorf("committing a batch (it comes again): %w", err)
	}
	ackAll(passed, handled)
	giveBack(rest)
	return len(passed) + len(handled), nil
}

// inStreamOrder sorts a pull's messages by stream sequence: JetStream
// delivers messages given back before new ones, so a pull can hold 7, 8,
// 3, 4. A message without JetStream metadata, which cannot be, goes back.
func inStreamOrder(msgs []jetstream.Msg) []jetstream.Msg {
	sorted := make([]jetstream.Msg, 0, len(msgs))
	for _, m := range msgs {
		if _, err := m.Metadata(); err != nil {
			_ = m.Nak()
			continue
		}
		sorted = append(sorted, m)
	}
	slices.SortFunc(sorted, func(a, b jetstream.Msg) int { return cmp.Compare(sequence(a), sequence(b)) })
	return sorted
}

// sequence is a message's place in its JetStream stream (inStreamOrder
// checked its metadata).
func sequence(m jetstream.Msg) uint64 {
	meta, _ := m.Metadata()
	return meta.Sequence.Stream
}

type answer int

const (
	nacked answer = iota
	acked
	closing // the reader closed before a handler took the message
)

// pass hands one message to the router in the batch's transaction and
// waits for its handlers' answer.
func (r *Reader) pass(ctx context.Context, tx watermillsql.Tx, m jetstream.Msg, out chan<- *message.Message) (answer, error) {
	msg, err := (&wmnats.NATSMarshaler{}).Unmarshal(&nats.Msg{Subject: m.Subject(), Data: m.Data(), Header: m.Headers()})
	if err != nil {
		return nacked, err
	}
	msg.SetContext(grouptx.With(ctx, tx))
	select {
	case out <- msg:
	case <-r.closing:
		return closing, nil
	}
	timeout := time.NewTimer(r.deadline)
	defer timeout.Stop()
	select {
	case <-msg.Acked():
		return acked, nil
	case <-msg.Nacked():
		return nacked, nil
	case <-timeout.C:
		return nacked, fmt.Errorf("no answer from its handlers within %s", r.deadline)
	}
}

// position is the stream sequence of the last message the group applied:
// the stored one, or, before the group has stored any, the consumer's
// acknowledged floor.
func (r *Reader) position(ctx context.Context, tx watermillsql.Tx, consumer jetstream.Consumer) (uint64, error) {
	std, ok := grouptx.Std(tx)
	if !ok {
		return 0, fmt.Errorf("messaging: unexpected transaction type %T", tx)
	}
	var seq int64
	err := std.QueryRowContext(ctx, `SELECT stream_sequence FROM platform.broker_offsets WHERE consumer_group = $1 AND stream = $2`,
		r.group, r.offsetsAt).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		info, err := consumer.Info(ctx)
		if err != nil {
			return 0, err
		}
		return info.AckFloor.Stream, nil
	}
	return uint64(seq), err
}

// advance stores the group's position in the batch's transaction.
func (r *Reader) advance(ctx context.Context, tx watermillsql.Tx, seq uint64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO platform.broker_offsets (consumer_group, stream, stream_sequence) VALUES ($1, $2, $3)
		ON CONFLICT (consumer_group, stream) DO UPDATE SET stream_sequence = excluded.stream_sequence, updated_at = now()`,
		r.group, r.offsetsAt, int64(seq))
	return err
}

// ackAll acknowledges messages to the broker without waiting for its
// answer: one that is lost brings the message again after the ack wait,
// to be passed over.
func ackAll(batches ...[]jetstream.Msg) {
	for _, b := range batches {
		for _, m := range b {
			_ = m.Ack()
		}
	}
}

// giveBack makes messages deliverable again at once.
func giveBack(batches ...[]jetstream.Msg) {
	for _, b := range batches {
		for _, m := range b {
			_ = m.Nak()
		}
	}
}

// consumer makes, or binds to, the group's durable pull consumer, trying
// again while the broker cannot be reached.
func (r *Reader) consumer(ctx context.Context) (jetstream.Consumer, error) {
	for {
		c, err := r.broker.pullConsumer(ctx, r.js, durableName(r.group))
		if err == nil {
			return c, nil
		}
		r.logger.Error("the consumer group's broker consumer cannot be made yet", err, watermill.LogFields{"consumer_group": r.group})
		if !r.pause(5 * time.Second) {
			return nil, err
		}
	}
}
