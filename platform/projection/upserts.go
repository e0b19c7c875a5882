package projection

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
)

// Of picks a read model's events out of a batch: the row an event touches,
// the version it brings, and what the read model keeps of it; ok is false
// for events it does not take.
type Of[E any] func(e messaging.Event) (id string, version int, kept E, ok bool)

// Upserts is a batch that leaves each row it touches as its newest event
// says, in one statement: the rows, each made by row, are its $1, a JSON
// array (read with json_to_recordset), and the statement guards versions
// (ON CONFLICT ... WHERE stored.version < excluded.version), so a batch
// written twice changes nothing the second time.
type Upserts[E any] struct {
	name      string // what the rows are, for errors
	statement string
	of        Of[E]
	row       func(E) (any, error)
	rows      Newest[E]
}

// NewUpserts returns an empty batch: name labels its errors, statement is the
// upsert that takes the rows as $1, of picks an event's row and version, and
// row makes the JSON object of a row.
func NewUpserts[E any](name, statement string, of Of[E], row func(E) (any, error)) *Upserts[E] {
	return &Upserts[E]{name: name, statement: statement, of: of, row: row}
}

// Add keeps e if it is the newest of its row so far.
func (b *Upserts[E]) Add(e messaging.Event) { b.rows.Take(e, b.of) }

// Write upserts the kept rows in tx, in one statement; an empty batch writes
// nothing.
func (b *Upserts[E]) Write(ctx context.Context, tx *sqlx.Tx) error {
	if b.rows.Len() == 0 {
		return nil
	}
	rows := make([]any, 0, b.rows.Len())
	for _, id := range b.rows.IDs() {
		r, err := b.row(b.rows.Get(id))
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	if err := ExecJSON(ctx, tx, b.statement, rows); err != nil {
		return fmt.Errorf("projecting %d %s: %w", len(rows), b.name, err)
	}
	return nil
}

// ExecJSON runs query with each argument encoded as one JSON document: how
// a batch hands its rows to a statement that reads them with
// json_to_recordset.
func ExecJSON(ctx context.Context, tx sqlx.ExecerContext, query string, args ...any) error {
	docs := make([]any, len(args))
	for i, a := range args {
		data, err := json.Marshal(a)
		if err != nil {
			return err
		}
		docs[i] = data
	}
	_, err := tx.ExecContext(ctx, query, docs...)
	return err
}
