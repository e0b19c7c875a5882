package partition

import (
	"context"
	"errors"
	"sync"

	"github.com/ThreeDotsLabs/watermill/message"
)

// Readers is a consumer group's one subscriber as the router sees it (one
// handler, the group's name: its metrics, dead letters and retries stay the
// group's), made of a reader per partition. Each partition's reader waits
// for its message's answer before it passes the next, so partitions are
// handled side by side and each in its order.
type Readers struct {
	// Prepare, when set, runs once before any partition subscribes (the
	// partitions' offsets rows).
	Prepare    func(ctx context.Context) error
	Partitions []message.Subscriber
}

// Subscribe subscribes every partition and merges what they pass on.
func (r *Readers) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	if r.Prepare != nil {
		if err := r.Prepare(ctx); err != nil {
			return nil, err
		}
	}
	ins := make([]<-chan *message.Message, 0, len(r.Partitions))
	for _, s := range r.Partitions {
		in, err := s.Subscribe(ctx, topic)
		if err != nil {
			return nil, errors.Join(err, r.Close())
		}
		ins = append(ins, in)
	}
	out := make(chan *message.Message)
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for msg := range in {
				out <- msg // the router reads until out is closed
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out, nil
}

// Close closes every partition's reader, side by side: each waits for the
// message it has in hand.
func (r *Readers) Close() error {
	errs := make([]error, len(r.Partitions))
	var wg sync.WaitGroup
	for i, s := range r.Partitions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
