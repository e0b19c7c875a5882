package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Throwaway is a private cluster for one test run: nothing is shared with
// other tests or the developer's own cluster, and nothing survives Close.
type Throwaway struct {
	cfg  Config
	dsn  string
	once sync.Once
	err  error
}

// StartThrowaway starts a fresh cluster in a new temp dir. It trades crash
// safety for speed (fsync off), which is fine for data nobody keeps.
func StartThrowaway(ctx context.Context, logf func(string, ...any)) (*Throwaway, error) {
	return StartThrowawayWith(ctx, logf, ThrowawayOptions{})
}

// ThrowawayOptions changes how StartThrowawayWith starts its cluster.
type ThrowawayOptions struct {
	// Durable keeps PostgreSQL's crash-safety settings (fsync,
	// synchronous_commit and full_page_writes on, initdb syncing its files):
	// a benchmark must measure the server as users run it, not a faster one.
	Durable bool
	// MaxConnections is as in Config (default 200); 100 is PostgreSQL's own.
	MaxConnections int
}

// StartThrowawayWith is StartThrowaway with options.
func StartThrowawayWith(ctx context.Context, logf func(string, ...any), opts ThrowawayOptions) (*Throwaway, error) {
	dir, err := os.MkdirTemp("", "shipd-pg-")
	if err != nil {
		return nil, fmt.Errorf("localcluster: %w", err)
	}
	t := &Throwaway{cfg: Config{Dir: dir, Logf: logf, MaxConnections: opts.MaxConnections}}
	t.dsn, err = ensure(ctx, t.cfg, !opts.Durable)
	if err != nil {
		return nil, errors.Join(err, t.Close())
	}
	return t, nil
}

// DSN is for the database "shipd" the throwaway creates, so code under test
// sees the same database name as in production.
func (t *Throwaway) DSN() string { return t.dsn }

// Close stops the server before removing its files so no postmaster is left
// running on a deleted directory. It is safe to call more than once.
func (t *Throwaway) Close() error {
	t.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		// Immediate: no shutdown checkpoint for data about to be deleted.
		stopErr := stop(ctx, t.cfg, "immediate")
		if stopErr != nil {
			// Deleting the files of a live server would orphan it; keep them
			// so the error can be investigated and the server stopped.
			t.err = stopErr
			return
		}
		t.err = os.RemoveAll(t.cfg.Dir)
	})
	return t.err
}
