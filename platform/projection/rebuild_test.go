package projection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/apptest"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/projection"
)

// A toy read model of two tables, shaped like the real ones: one row per
// note, version-guarded, a tombstone for an erased note; and a counter.

type noted struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
	Note    string `json:"note"`
}

func (noted) EventType() string   { return "test.noted" }
func (noted) EventStream() string { return "test.notes" }

type erased struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
}

func (erased) EventType() string   { return "test.erased" }
func (erased) EventStream() string { return "test.notes" }

const notesDDL = `
	CREATE TABLE public.notes (
		id      text PRIMARY KEY,
		version integer NOT NULL,
		erased  boolean NOT NULL DEFAULT false,
		note    text NOT NULL,
		CONSTRAINT notes_version_check CHECK (version > 0)
	);
	CREATE INDEX notes_note_idx ON public.notes (note text_pattern_ops) WHERE NOT erased;
	CREATE TABLE public.note_count (k integer PRIMARY KEY, n bigint NOT NULL)`

// upsertNote is the projection's write, against the live names.
const upsertNote = `INSERT INTO public.notes AS n (id, version, erased, note) VALUES ($1, $2, $3, $4)
	ON CONFLICT (id) DO UPDATE SET version = excluded.version, erased = excluded.erased, note = excluded.note
	WHERE n.version < excluded.version`

const recount = `INSERT INTO public.note_count AS c (k, n) SELECT 1, count(*) FROM public.notes WHERE NOT erased
	ON CONFLICT (k) DO UPDATE SET n = excluded.n`

var notes = projection.Projection{
	Name:   "public.notes",
	Tables: []string{"public.notes", "public.note_count"},
	Events: []messaging.EventKind{messaging.Takes[noted](), messaging.Takes[erased]()},
	NewBatch: func(t projection.Tables) messaging.Batch {
		return &noteBatch{upsert: t.SQL(upsertNote), count: t.SQL(recount)}
	},
}

// noteBatch writes each event of its batch in turn: the rebuild does not
// care how a batch writes.
type noteBatch struct {
	upsert, count string
	events        []messaging.Event
}

func (b *noteBatch) Add(e messaging.Event) { b.events = append(b.events, e) }

func (b *noteBatch) Write(ctx context.Context, tx *sqlx.Tx) error {
	for _, e := range b.events {
		var err error
		switch e := e.(type) {
		case *noted:
			_, err = tx.ExecContext(ctx, b.upsert, e.ID, e.Version, false, e.Note)
		case *erased:
			_, err = tx.ExecContext(ctx, b.upsert, e.ID, e.Version, true, "")
		}
		if err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, b.count)
	return err
}

type env struct {
	t      *testing.T
	db     *sqlx.DB
	outbox *messaging.Outbox
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := pgtest.Open(t)
	ctx := t.Context()
	if err := messaging.InitializeStreams(ctx, db, []string{"test.notes"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, notesDDL); err != nil {
		t.Fatal(err)
	}
	logger := messaging.WatermillLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	return &env{t: t, db: db, outbox: messaging.NewOutbox(logger)}
}

func (e *env) catalog(o projection.Options) *projection.Catalog {
	return projection.NewCatalog(e.db, []projection.Projection{notes}).WithOptions(o)
}

// publish commits events in one transaction and applies them to the live
// tables, as the live handlers would.
func (e *env) publish(events ...messaging.Event) {
	e.t.Helper()
	ctx := context.Background()
	if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error { return e.outbox.Publish(ctx, tx, events...) }); err != nil {
		e.t.Fatalf("publishing: %v", err)
	}
	e.applyLive(events...)
}

func (e *env) applyLive(events ...messaging.Event) {
	e.t.Helper()
	ctx := context.Background()
	for _, ev := range events {
		payload, err := json.Marshal(ev)
		if err != nil {
			e.t.Fatal(err)
		}
		m := messaging.StoredMessage{Topic: ev.EventStream(), Name: ev.EventType(), UUID: "evt_live", Payload: payload}
		if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error { return notes.Apply(ctx, tx, projection.Live, m) }); err != nil {
			e.t.Fatalf("applying %v live: %v", ev, err)
		}
	}
}

// seed publishes the history of n notes over several transactions, some of
// it out of order: version 2 of each third note before its version 1, and
// every fifth note erased.
func (e *env) seed(n int) (events int) {
	e.t.Helper()
	var batch []messaging.Event
	for i := range n {
		id := fmt.Sprintf("note-%04d", i)
		v1, v2 := noted{ID: id, Version: 1, Note: "first " + id}, noted{ID: id, Version: 2, Note: "second " + id}
		if i%3 == 0 {
			batch = append(batch, v2, v1)
		} else {
			batch = append(batch, v1, v2)
		}
		if i%5 == 0 {
			batch = append(batch, erased{ID: id, Version: 3})
		}
		if len(batch) >= 50 {
			events += len(batch)
			e.publish(batch...)
			batch = nil
		}
	}
	events += len(batch)
	e.publish(batch...)
	return events
}

// state is everything a reader of the toy read model could see.
func (e *env) state() string {
	e.t.Helper()
	var rows []string
	if err := e.db.Select(&rows, `SELECT format('%s v%s erased=%s %s', id, version, erased, note) FROM public.notes ORDER BY id`); err != nil {
		e.t.Fatal(err)
	}
	var count []string
	if err := e.db.Select(&count, `SELECT format('count %s=%s', k, n) FROM public.note_count ORDER BY k`); err != nil {
		e.t.Fatal(err)
	}
	return strings.Join(append(rows, count...), "\n")
}

// schema lists the tables' columns, constraints and indexes by name and
// definition: the swap must leave the names the live writes rely on.
func (e *env) schema() string {
	e.t.Helper()
	var out []string
	if err := e.db.Select(&out, `
		SELECT format('index %s: %s', indexname, indexdef) FROM pg_indexes WHERE schemaname = 'public' AND tablename LIKE 'note%'
		UNION ALL
		SELECT format('constraint %s on %s: %s', conname, conrelid::regclass, pg_get_constraintdef(oid)) FROM pg_constraint
		WHERE conrelid IN ('public.notes'::regclass, 'public.note_count'::regclass)
		UNION ALL
		SELECT format('column %s.%s %s %s default %s', table_name, column_name, data_type, is_nullable, column_default)
		FROM information_schema.columns WHERE table_schema = 'public' AND table_name LIKE 'note%'
		ORDER BY 1`); err != nil {
		e.t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

func (e *env) leftovers() []string {
	e.t.Helper()
	var names []string
	if err := e.db.Select(&names, `SELECT relname FROM pg_class WHERE relname LIKE '%\_rebuild'`); err != nil {
		e.t.Fatal(err)
	}
	return names
}

func (e *env) corrupt() {
	e.t.Helper()
	if _, err := e.db.Exec(`DELETE FROM public.notes WHERE id < 'note-0040';
		UPDATE public.notes SET note = 'garbage', version = 99 WHERE id = 'note-0100';
		UPDATE public.note_count SET n = 7`); err != nil {
		e.t.Fatal(err)
	}
}

type stages struct {
	mu  sync.Mutex
	log []string
}

func (s *stages) progress(stage projection.Stage, done, total int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	line := fmt.Sprintf("%s %d/%d", stage, done, total)
	if len(s.log) == 0 || s.log[len(s.log)-1] != line {
		s.log = append(s.log, line)
	}
}

func TestRebuildReplacesACorruptedReadModel(t *testing.T) {
	e := newEnv(t)
	events := e.seed(300)
	want, wantSchema := e.state(), e.schema()
	e.corrupt()
	if e.state() == want {
		t.Fatal("corrupting changed nothing")
	}
	var seen stages
	report, err := e.catalog(projection.Options{BatchSize: 100}).Rebuild(t.Context(), "public.notes", seen.progress)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.state(); got != want {
		t.Errorf("rebuilt read model differs from the one before corruption:\n%s", apptest.DiffLines(want, got))
	}
	if got := e.schema(); got != wantSchema {
		t.Errorf("tables, constraints or indexes changed by the swap:\n%s", apptest.DiffLines(wantSchema, got))
	}
	if left := e.leftovers(); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if report.Events != int64(events) || report.CaughtUp != 0 || report.Name != "public.notes" {
		t.Errorf("report %+v, want %d events replayed, none caught up", report, events)
	}
	if !slices.Contains(seen.log, fmt.Sprintf("replaying %d/%d", events, events)) || !slices.Contains(seen.log, "replaying 100/"+fmt.Sprint(events)) {
		t.Errorf("progress did not count the replay batch by batch: %v", seen.log)
	}
	// The live writes still work on the swapped tables, by the constraint
	// their ON CONFLICT infers.
	e.publish(noted{ID: "note-0001", Version: 9, Note: "after the swap"})
	if !strings.Contains(e.state(), "note-0001 v9 erased=f after the swap") {
		t.Errorf("a live write after the swap is missing:\n%s", e.state())
	}
}

// Events committed while the replay runs are not in its snapshot; the
// catch-up applies them, whether their live handler already wrote them to
// the old tables or not.
func TestRebuildCatchesUpWithEventsCommittedWhileItRuns(t *testing.T) {
	e := newEnv(t)
	e.seed(100)
	var once, swapping sync.Once
	progress := func(stage projection.Stage, done, total int64) {
		if stage == projection.Swapping {
			// After the last catch-up round, before the swap locks: only
			// the swap's own catch-up can bring it.
			swapping.Do(func() { e.publish(noted{ID: "during-3", Version: 1, Note: "written as the swap begins"}) })
		}
		if stage == projection.Replaying && done > 0 {
			once.Do(func() {
				e.publish(noted{ID: "during-1", Version: 1, Note: "written during the replay"})
				// Committed, but its live handler has not run yet.
				ctx := context.Background()
				if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
					return e.outbox.Publish(ctx, tx, noted{ID: "during-2", Version: 1, Note: "not applied live"})
				}); err != nil {
					t.Error(err)
				}
			})
		}
	}
	// Small batches: each goes on where the one before stopped.
	report, err := e.catalog(projection.Options{BatchSize: 7}).Rebuild(t.Context(), "public.notes", progress)
	if err != nil {
		t.Fatal(err)
	}
	state := e.state()
	for _, want := range []string{"during-1 v1 erased=f written during the replay", "during-2 v1 erased=f not applied live",
		"during-3 v1 erased=f written as the swap begins"} {
		if !strings.Contains(state, want) {
			t.Errorf("missing after the rebuild: %q", want)
		}
	}
	if !strings.Contains(state, "count 1=83") { // 100 notes, 20 erased, 3 new
		t.Errorf("counter wrong after the catch-up:\n%s", state[strings.LastIndex(state, "\n")+1:])
	}
	if report.CaughtUp != 3 {
		t.Errorf("report %+v, want 3 events caught up", report)
	}
}

// PostgreSQL looks a table's name up again when a statement got the lock it
// waited for on a table that was renamed or dropped meanwhile: live writes
// and reads blocked by the swap run against the new tables, not into an
// error or a dropped table.
func TestStatementsBlockedByTheSwapUseTheNewTables(t *testing.T) {
	e := newEnv(t)
	e.seed(20)
	type result struct {
		what string
		err  error
		n    int
	}
	results := make(chan result, 3)
	hold := func() {
		ctx := context.Background()
		go func() { // a live handler's write: lock the row, then upsert (as the shipment list does)
			err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
				var v int
				if err := tx.GetContext(ctx, &v, `SELECT version FROM public.notes WHERE id = $1 FOR UPDATE`, "note-0002"); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, upsertNote, "blocked-writer", 1, false, "written while the swap held the lock")
				return err
			})
			results <- result{what: "writer", err: err}
		}()
		go func() {
			var n int
			err := e.db.GetContext(ctx, &n, `SELECT count(*) FROM public.notes WHERE note LIKE 'after%'`)
			results <- result{what: "reader", err: err, n: n}
		}()
		// A statement parsed before the swap but waiting on it.
		go func() {
			var n int
			err := e.db.GetContext(ctx, &n, `SELECT n FROM public.note_count WHERE k = 1`)
			results <- result{what: "counter reader", err: err, n: n}
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var waiting int
			if err := e.db.Get(&waiting, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%public.note%'`); err != nil {
				t.Error(err)
				return
			}
			if waiting == 3 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d statements wait for the swap's lock, want 3", waiting)
				return
			}
			time.Sleep(10 * time.Millisecond) // between polls of pg_stat_activity
		}
	}
	// Rows only the rebuilt table has, so a reader tells which table it read.
	if _, err := e.db.Exec(`DELETE FROM public.notes; UPDATE public.note_count SET n = -1`); err != nil {
		t.Fatal(err)
	}
	e.publish(noted{ID: "after-1", Version: 1, Note: "after-1"})
	if _, err := e.db.Exec(`DELETE FROM public.notes WHERE id = 'after-1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.catalog(projection.Options{}.WithBeforeSwapCommit(hold)).Rebuild(t.Context(), "public.notes", nil); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case r := <-results:
			switch {
			case r.err != nil:
				t.Errorf("%s blocked by the swap failed: %v", r.what, r.err)
			case r.what == "reader" && r.n != 1:
				t.Errorf("reader blocked by the swap counted %d rows of the new table, want 1 (it read the old one)", r.n)
			case r.what == "counter reader" && r.n != 17:
				t.Errorf("counter read %d after the swap, want 17 (the rebuilt count)", r.n)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a statement blocked by the swap never finished")
		}
	}
	if !strings.Contains(e.state(), "blocked-writer v1 erased=f written while the swap held the lock") {
		t.Errorf("the blocked write did not land in the new table:\n%s", e.state())
	}
}

func TestFailedRebuildLeavesTheLiveTables(t *testing.T) {
	e := newEnv(t)
	e.seed(10)
	ctx := context.Background()
	// An event the projection cannot apply (the check refuses version 0).
	if err := postgres.InTx(ctx, e.db, func(tx *sqlx.Tx) error {
		return e.outbox.Publish(ctx, tx, noted{ID: "poison", Version: 0, Note: "x"})
	}); err != nil {
		t.Fatal(err)
	}
	before := e.state()
	_, err := e.catalog(projection.Options{}).Rebuild(t.Context(), "public.notes", nil)
	if err == nil || !strings.Contains(err.Error(), "notes_version_check") {
		t.Fatalf("rebuild = %v, want the failed check", err)
	}
	if e.state() != before {
		t.Error("a failed rebuild changed the live read model")
	}
	if left := e.leftovers(); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A transaction that keeps the live tables locked makes the swap give up
// after its attempts, without blocking readers meanwhile.
func TestSwapGivesUpOnALockItCannotGet(t *testing.T) {
	e := newEnv(t)
	e.seed(10)
	ctx := context.Background()
	blocker, err := e.db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback()
	if _, err := blocker.Exec(`UPDATE public.note_count SET n = n`); err != nil {
		t.Fatal(err)
	}
	before := e.state()
	startedAt := time.Now()
	_, err = e.catalog(projection.Options{LockTimeout: 100 * time.Millisecond, SwapAttempts: 3}).Rebuild(t.Context(), "public.notes", nil)
	if err == nil || !strings.Contains(err.Error(), "lock timeout") {
		t.Fatalf("rebuild = %v, want a lock timeout", err)
	}
	if took := time.Since(startedAt); took > 5*time.Second {
		t.Errorf("giving up took %s", took)
	}
	if e.state() != before {
		t.Error("the live read model changed")
	}
	if left := e.leftovers(); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestOneRebuildOfAProjectionAtATime(t *testing.T) {
	e := newEnv(t)
	e.seed(10)
	c := e.catalog(projection.Options{BatchSize: 5})
	var second error
	var once sync.Once
	if _, err := c.Rebuild(t.Context(), "public.notes", func(projection.Stage, int64, int64) {
		once.Do(func() { _, second = c.Rebuild(t.Context(), "public.notes", nil) })
	}); err != nil {
		t.Fatal(err)
	}
	if second == nil || !strings.Contains(second.Error(), "already running") {
		t.Errorf("second rebuild = %v, want already running", second)
	}
	if _, err := c.Rebuild(t.Context(), "public.nope", nil); err == nil || !strings.Contains(err.Error(), `unknown projection "public.nope" (known: public.notes)`) {
		t.Errorf("unknown name = %v", err)
	}
}
