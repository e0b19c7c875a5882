package grouptx

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jmoiron/sqlx"

	"shipd/platform/failpoint"
	"shipd/platform/postgres/pgtest"
)

// insertRow is a batch that writes one row.
type insertRow struct{ id int }

func (r insertRow) Write(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO written (id) VALUES ($1)`, r.id)
	return err
}

// The fault suite's kill point of ADR 0048 is passed by a durable group
// after its batch is written and before the acknowledgement is: a stop
// there commits nothing of the batch. A read model's group, whose batch a
// crash may lose (ADR 0031), never passes there. Not parallel: the
// failpoint is the process's.
func TestDurableGroupsPassTheBatchWrittenPoint(t *testing.T) {
	db := pgtest.Open(t)
	if _, err := db.Exec(`CREATE TABLE written (id integer PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	for id, durable := range []bool{true, false} {
		b := Beginner{Beginner: watermillsql.BeginnerFromStdSQL(db.DB), Key: "consumer:test/failpoint",
			Group: &Group{FlushTimeout: 5 * time.Second, Durable: durable, Log: slog.New(slog.DiscardHandler), DB: db}}
		began, err := b.BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tx := began.(*Tx)
		tx.Batch("rows", func() AtCommit { return insertRow{id} })
		disarm := failpoint.Stop(failpoint.GroupBatchWritten, 1)
		_, err = tx.ExecContext(t.Context(), `SELECT 1`) // as Watermill writes its acknowledgement
		hits := disarm()
		if durable {
			if hits != 1 || !errors.Is(err, failpoint.ErrStopped) {
				t.Fatalf("durable group: the point was passed %d times; the acknowledgement's write answered %v", hits, err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
		} else {
			if hits != 0 || err != nil {
				t.Fatalf("read model's group: the point was passed %d times; the acknowledgement's write answered %v", hits, err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		var rows int
		if err := db.Get(&rows, `SELECT count(*) FROM written WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 0, false: 1}[durable]; rows != want {
			t.Errorf("durable %v: %d rows of the batch committed, want %d", durable, rows, want)
		}
	}
}
