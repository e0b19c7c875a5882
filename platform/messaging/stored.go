package messaging

import (
	"context"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/pgstream"
	"shipd/platform/messaging/internal/stored"
)

// Snapshot is a PostgreSQL snapshot: it tells which transactions had
// committed when it was taken.
type Snapshot = stored.Snapshot

// Window selects stored messages by the snapshots their transactions
// committed between.
type Window = stored.Window

// StoredMessage is a message read back from its stream's table.
type StoredMessage = stored.Message

// Cursor is how far a reader of stored messages got in each stream.
type Cursor = stored.Cursor

// TakeSnapshot returns the database's snapshot now.
func TakeSnapshot(ctx context.Context, q sqlx.QueryerContext) (Snapshot, error) {
	return stored.TakeSnapshot(ctx, q)
}

// ReadStored returns up to limit messages of topics in w after cur, in the
// order their transactions committed, and the cursor after them.
func ReadStored(ctx context.Context, q sqlx.QueryerContext, topics []string, w Window, cur Cursor, limit int) ([]StoredMessage, Cursor, error) {
	return stored.Read(ctx, q, topics, w, cur, limit)
}

// CountStored counts the messages of topics in w.
func CountStored(ctx context.Context, q sqlx.QueryerContext, topics []string, w Window) (int64, error) {
	return stored.Count(ctx, q, topics, w)
}

// ExistingTopics returns those of topics whose table exists in q's database.
func ExistingTopics(ctx context.Context, q sqlx.QueryerContext, topics []string) ([]string, error) {
	return stored.ExistingTopics(ctx, q, topics)
}

// InitializeStreams creates the tables of every stream, by `shipd migrate
// up` and at serve start-up (a publisher bound to a transaction cannot).
func InitializeStreams(ctx context.Context, db *sqlx.DB, streams []string) error {
	return pgstream.InitializeStreams(ctx, db, streams)
}
