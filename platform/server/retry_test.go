package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shipd/platform/server"
)

func TestKeepTryingUntilItWorksOrTimeIsUp(t *testing.T) {
	t.Parallel() // seconds of its own pauses, and no database
	down := errors.New("database unavailable")
	calls := 0
	err := server.KeepTrying(context.Background(), 10*time.Second, func() error {
		calls++
		if calls < 3 {
			return down
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("err %v after %d calls, want success on the third", err, calls)
	}

	calls = 0
	start := time.Now()
	err = server.KeepTrying(context.Background(), 1500*time.Millisecond, func() error { calls++; return down })
	if !errors.Is(err, down) || calls != 3 || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %d calls in %s, want the last error after 3 calls (at 0, 1 and 2 s)", err, calls, time.Since(start))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	if err := server.KeepTrying(ctx, time.Minute, func() error { calls++; return down }); !errors.Is(err, down) || calls != 1 {
		t.Errorf("with ctx ended: err %v after %d calls, want one call", err, calls)
	}
}
