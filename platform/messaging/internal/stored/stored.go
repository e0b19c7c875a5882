// Package stored reads the messages the stream tables keep back, by the
// transactions that wrote them, for a read model's rebuild.
package stored

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging/internal/codec"
	"shipd/platform/messaging/internal/pgstream"
)

// Messages stay in their topic's table after every consumer group has read
// them (nothing deletes them), so a read model can be rebuilt by reading its
// topics back. A reader selects messages by the transaction that wrote them,
// against PostgreSQL snapshots: "committed when the snapshot was taken" is
// exact, where offsets (one sequence per topic) and created_at (the
// transaction's start) are not.

// Snapshot is a PostgreSQL snapshot (pg_snapshot in text form): it tells which
// transactions had committed when it was taken.
type Snapshot string

// TakeSnapshot returns the database's snapshot now.
func TakeSnapshot(ctx context.Context, q sqlx.QueryerContext) (Snapshot, error) {
	var s string
	if err := sqlx.GetContext(ctx, q, &s, `SELECT pg_current_snapshot()::text`); err != nil {
		return "", fmt.Errorf("taking a snapshot: %w", err)
	}
	return Snapshot(s), nil
}

// Window selects stored messages: those whose transaction committed in Upto
// (every committed one when Upto is empty) and not in After (none left out
// when After is empty).
type Window struct {
	After, Upto Snapshot
}

// Message is a message read back from its topic's table, a module's
// stream.
type Message struct {
	Topic    string
	Name     string // the event type
	TxID     uint64 // the transaction that published it
	Offset   int64
	UUID     string
	Payload  []byte
	Metadata message.Metadata
}

// Cursor is how far a reader got in each topic; the zero Cursor is the start.
type Cursor struct {
	at map[string]position
}

type position struct {
	txID   uint64
	offset int64
}

// Past returns the cursor just after m, for a reader that applied only part
// of what Read returned.
func (c Cursor) Past(m Message) Cursor {
	at := maps.Clone(c.at)
	if at == nil {
		at = map[string]position{}
	}
	at[m.Topic] = position{txID: m.TxID, offset: m.Offset}
	return Cursor{at: at}
}

// Read returns up to limit messages of topics in w after cur, and the
// cursor after them. Messages come by the id of the transaction that
// published them (handed out when a transaction first writes, so one that
// began after another committed comes after it: a shipment's creation before
// anything done to it), then in the order of topics within one transaction,
// then by offset.
func Read(ctx context.Context, q sqlx.QueryerContext, topics []string, w Window, cur Cursor, limit int) ([]Message, Cursor, error) {
	if len(topics) == 0 || limit <= 0 {
		return nil, cur, nil
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	window := w.condition(arg)
	n := arg(limit)
	branches := make([]string, len(topics))
	for i, topic := range topics {
		p := cur.at[topic]
		// Each branch walks its table's primary key (transaction_id,
		// "offset") from the cursor; the outer query merges them.
		branches[i] = fmt.Sprintf(`(SELECT %d AS topic, "offset", transaction_id, uuid, payload, metadata FROM %s
			WHERE (transaction_id, "offset") > (%s::xid8, %s::bigint)%s
			ORDER BY transaction_id, "offset" LIMIT %s)`,
			i, pgstream.MessagesTable(topic), arg(strconv.FormatUint(p.txID, 10)), arg(p.offset), window, n)
	}
	// ORDER BY names m's columns: a bare transaction_id would be the output
	// column transaction_id::text, sorting "100000" before "99999", and the
	// cursor would skip what the LIMIT cut off (it lost events once the
	// cluster's transaction ids grew a digit).
	query := `SELECT m.topic, m."offset", m.transaction_id::text, m.uuid, m.payload, m.metadata FROM (` + strings.Join(branches, " UNION ALL ") +
		`) m ORDER BY m.transaction_id, m.topic, m."offset" LIMIT ` + n
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, cur, fmt.Errorf("reading stored messages: %w", err)
	}
	defer rows.Close()
	next := cur
	var out []Message
	for rows.Next() {
		var (
			i        int
			txID     string
			metadata []byte
			m        Message
		)
		if err := rows.Scan(&i, &m.Offset, &txID, &m.UUID, &m.Payload, &metadata); err != nil {
			return nil, cur, fmt.Errorf("reading stored messages: %w", err)
		}
		if len(metadata) > 0 {
			if err := json.Unmarshal(metadata, &m.Metadata); err != nil {
				return nil, cur, fmt.Errorf("reading stored message %s: metadata: %w", m.UUID, err)
			}
		}
		if m.TxID, err = strconv.ParseUint(txID, 10, 64); err != nil {
			return nil, cur, fmt.Errorf("reading stored messages: transaction id %q: %w", txID, err)
		}
		m.Topic = topics[i]
		m.Name = m.Metadata.Get(codec.MetadataName)
		next = next.Past(m)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, cur, fmt.Errorf("reading stored messages: %w", err)
	}
	return out, next, nil
}

// Count counts the messages of topics in w.
func Count(ctx context.Context, q sqlx.QueryerContext, topics []string, w Window) (int64, error) {
	if len(topics) == 0 {
		return 0, nil
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	window := w.condition(arg)
	counts := make([]string, len(topics))
	for i, topic := range topics {
		counts[i] = `(SELECT count(*) FROM ` + pgstream.MessagesTable(topic) + ` WHERE true` + window + `)`
	}
	var n int64
	if err := sqlx.GetContext(ctx, q, &n, `SELECT `+strings.Join(counts, " + "), args...); err != nil {
		return 0, fmt.Errorf("counting stored messages: %w", err)
	}
	return n, nil
}

// condition is w as SQL ANDed to a topic table's WHERE clause. The bounds on
// transaction_id keep the primary key's range scan to the window; the
// visibility tests then drop the few transactions that were running when a
// snapshot was taken.
func (w Window) condition(arg func(any) string) string {
	var sql string
	if w.Upto != "" {
		s := arg(string(w.Upto)) + "::pg_snapshot"
		sql += ` AND transaction_id < pg_snapshot_xmax(` + s + `) AND pg_visible_in_snapshot(transaction_id, ` + s + `)`
	}
	if w.After != "" {
		s := arg(string(w.After)) + "::pg_snapshot"
		sql += ` AND transaction_id >= pg_snapshot_xmin(` + s + `) AND NOT pg_visible_in_snapshot(transaction_id, ` + s + `)`
	}
	return sql
}

// ExistingTopics returns those of topics whose table exists in q's
// database.
func ExistingTopics(ctx context.Context, q sqlx.QueryerContext, topics []string) ([]string, error) {
	var out []string
	for _, t := range topics {
		var exists bool
		if err := sqlx.GetContext(ctx, q, &exists, `SELECT to_regclass($1) IS NOT NULL`, pgstream.MessagesTable(t)); err != nil {
			return nil, fmt.Errorf("looking for the table of topic %s: %w", t, err)
		}
		if exists {
			out = append(out, t)
		}
	}
	return out, nil
}
