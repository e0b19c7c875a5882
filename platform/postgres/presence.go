package postgres

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"encoding/binary"
	"log/slog"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
)

// presenceClass is the first key of every presence lock ("ship" in ASCII),
// so shipd's advisory locks stay apart from anyone else's in the cluster.
const presenceClass = 0x73686970

// presenceCheck is how often a held presence lock's connection is checked,
// and how long a lost one waits before it is taken again.
const presenceCheck = 5 * time.Second

// Presence tells a crashed instance from a slow one. Each instance holds a
// session advisory lock, keyed by its random id, on a connection of its own
// for as long as it runs; PostgreSQL drops the lock the moment that
// connection dies, so a kill -9 ends the instance's presence at once, with no
// timeout to wait out. Work an instance has claimed carries its id, and
// another instance may take such work over as soon as AliveSQL says the
// holder is gone.
type Presence struct {
	db *sqlx.DB
	id int32
}

// NewPresence returns the presence of this process, with a fresh id.
func NewPresence(db *sqlx.DB) *Presence {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	// Positive, so it reads the same as the oid in pg_locks.objid.
	return &Presence{db: db, id: int32(binary.BigEndian.Uint32(b[:]) >> 1)}
}

// ID is what this instance writes into the work it claims.
func (p *Presence) ID() int32 { return p.id }

// AliveSQL is an SQL condition, true while the instance whose id is in
// column holds its presence lock.
func AliveSQL(column string) string {
	return `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory'
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.classid = ` + strconv.Itoa(presenceClass) + `::oid
		AND l.objid = (` + column + `)::oid AND l.objsubid = 2 AND l.granted)`
}

// Name names the worker.
func (p *Presence) Name() string { return "platform.presence" }

// Run holds the lock until ctx ends, taking it again whenever its connection
// is lost (a PostgreSQL restart). Meanwhile other instances may take this
// one's claims over, which is safe: a claim is only ever completed by the
// holder of its token (ADR 0007).
func (p *Presence) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		if err := p.hold(ctx); err != nil && ctx.Err() == nil {
			slog.WarnContext(ctx, "instance presence lock lost; taking it again", "err", err, "retry_in", presenceCheck)
		}
		select {
		case <-ctx.Done():
		case <-time.After(presenceCheck):
		}
	}
	return nil
}

func (p *Presence) hold(ctx context.Context) error {
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return err
	}
	// Closing the connection, not unlocking, ends the presence: the pool
	// must not hand a connection that holds the lock to anyone else.
	defer func() { _ = conn.Raw(func(any) error { return driver.ErrBadConn }) }()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1, $2)`, int32(presenceClass), p.id); err != nil {
		return err
	}
	t := time.NewTicker(presenceCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := conn.PingContext(ctx); err != nil {
				return err
			}
		}
	}
}

// Alive reports whether this instance's presence lock is held now.
func (p *Presence) Alive(ctx context.Context) (bool, error) {
	var alive bool
	err := p.db.GetContext(ctx, &alive, `SELECT `+AliveSQL("$1::int"), p.id)
	return alive, err
}
