package pgstream

import (
	"context"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
)

// gracefulSubscriber stops a Watermill SQL subscriber the way a clean
// shutdown should: the poll in flight finishes, the message being handled is
// acknowledged (or nacked) before the subscriber's transaction acks and
// commits, and nothing is logged as an error.
//
// Left alone, the router cancels every subscriber's context the moment it
// starts closing, which breaks off a poll or an ack in flight (logged as
// ERROR "Error querying for message … context canceled", and the batch's
// handled messages delivered again after the restart), and it closes the
// subscriber while a handler may still be writing in the subscriber's
// transaction, so the ack query runs on the same connection at the same time
// ("driver: bad connection"). So the subscriber gets a context no one
// cancels, and Close first stops passing messages on, then waits for the
// one being handled, and only then closes the SQL subscriber, which stops
// between two polls and discards what it had queued (delivered again later).
type gracefulSubscriber struct {
	sql message.Subscriber
	// idle is closed at Close, ending a wait for new messages at once.
	idle chan struct{}
	// ackDeadline bounds the wait for a handler that never answers; the
	// subscriber gives up on such a message after the same time.
	ackDeadline time.Duration

	mu       sync.Mutex
	closed   bool
	handling []*message.Message // passed on, not yet acked or nacked; one per subscription at most
}

func newGracefulSubscriber(sql message.Subscriber, ackDeadline time.Duration, idle chan struct{}) *gracefulSubscriber {
	return &gracefulSubscriber{sql: sql, ackDeadline: ackDeadline, idle: idle}
}

func (s *gracefulSubscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	in, err := s.sql.Subscribe(context.WithoutCancel(ctx), topic)
	if err != nil {
		return nil, err
	}
	out := make(chan *message.Message)
	go func() {
		defer close(out)
		for msg := range in {
			if !s.pass(msg) {
				continue // closing: the SQL subscriber discards it once closed
			}
			out <- msg // the router reads until out is closed
		}
	}()
	return out, nil
}

// pass records msg as being handled, unless Close has begun.
func (s *gracefulSubscriber) pass(msg *message.Message) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handling = append(s.handling, msg)
	go func() {
		select {
		case <-msg.Acked():
		case <-msg.Nacked():
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, m := range s.handling {
			if m == msg {
				s.handling = append(s.handling[:i], s.handling[i+1:]...)
				break
			}
		}
	}()
	return true
}

func (s *gracefulSubscriber) Close() error {
	s.mu.Lock()
	if !s.closed {
		close(s.idle)
	}
	s.closed = true
	handling := append([]*message.Message(nil), s.handling...)
	s.mu.Unlock()
	give := time.After(s.ackDeadline)
	for _, msg := range handling {
		select {
		case <-msg.Acked():
		case <-msg.Nacked():
		case <-give:
		}
	}
	return s.sql.Close()
}
