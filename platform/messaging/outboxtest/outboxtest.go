// Package outboxtest is what a module's repository contract tests
// (adapters/repositorytest) read beside the repository: the messages it
// wrote to the outbox, from the stream tables of a real database or from an
// in-memory repository's record, in one shape, so one suite holds both to
// the same messages.
package outboxtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
	"shipd/platform/postgres/pgtest"
)

// Message is one message a repository wrote with a change: an event's type
// or a command's name, and its payload as JSON.
type Message struct {
	Name    string
	Payload json.RawMessage
}

// Open gives t a migrated database of its own (pgtest.Open) with the tables
// of streams, the streams a repository publishes and sends to.
func Open(t testing.TB, streams ...string) *sqlx.DB {
	t.Helper()
	db := pgtest.Open(t)
	if err := messaging.InitializeStreams(context.Background(), db, streams); err != nil {
		t.Fatal(err)
	}
	return db
}

// Written returns every message of streams committed in db, in the order
// they were written.
func Written(t testing.TB, db *sqlx.DB, streams ...string) []Message {
	t.Helper()
	var out []Message
	var cur messaging.Cursor
	for {
		msgs, next, err := messaging.ReadStored(context.Background(), db, streams, messaging.Window{}, cur, 500)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			out = append(out, Message{Name: m.Name, Payload: m.Payload})
		}
		if len(msgs) < 500 {
			return out
		}
		cur = next
	}
}

// Of is what an in-memory repository records (its published events, the
// commands it sent) as the outbox would have written it.
func Of[M any](t testing.TB, recorded []M) []Message {
	t.Helper()
	out := make([]Message, 0, len(recorded))
	for _, m := range recorded {
		var name string
		switch m := any(m).(type) {
		case messaging.Event:
			name = m.EventType()
		case messaging.Command:
			name = m.CommandName()
		default:
			t.Fatalf("%T is neither an event nor a command", m)
		}
		payload, err := json.Marshal(m)
		if err != nil {
			t.Fatal(fmt.Errorf("%s: %w", name, err))
		}
		out = append(out, Message{Name: name, Payload: payload})
	}
	return out
}

// FromStreams reads, when called, every message committed to streams in
// db (Written): a repository contract's reader of what the PostgreSQL
// adapter wrote.
func FromStreams(db *sqlx.DB, streams ...string) func(t *testing.T) []Message {
	return func(t *testing.T) []Message { return Written(t, db, streams...) }
}

// FromRecord reads, when called, what recorded returns as the outbox
// would have written it (Of): a repository contract's reader of what an
// in-memory repository recorded.
func FromRecord[M any](recorded func() []M) func(t *testing.T) []Message {
	return func(t *testing.T) []Message { return Of(t, recorded()) }
}

// WantNames fails t unless the names of got are want, in order; what
// says which messages they are ("written", "sent").
func WantNames(t testing.TB, what string, got []Message, want ...string) {
	t.Helper()
	if names := Names(got); !slices.Equal(names, want) {
		t.Errorf("%s %v, want %v", what, names, want)
	}
}

// Names are the messages' names, in order.
func Names(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Name
	}
	return out
}

// SameJSON reports whether payload is v's JSON (compared as values, so
// the order of members and spacing do not matter).
func SameJSON(t testing.TB, payload json.RawMessage, v any) bool {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(payload, &a); err != nil {
		t.Fatalf("payload %s: %v", payload, err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(a, b)
}
