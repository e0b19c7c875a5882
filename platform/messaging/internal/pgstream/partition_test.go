package pgstream

import (
	"testing"
	"time"

	watermillsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"

	"shipd/platform/postgres/pgtest"
)

// A partition's read takes no transaction id while it finds messages of
// its own (ADR 0031 holds), and moves its offset past the others' only
// when it finds none, never past a message not yet visible.
func TestAPartitionsReadMovesPastOthersOnlyWhenIdle(t *testing.T) {
	db := pgtest.Open(t)
	ctx := t.Context()
	if err := InitializeStreams(ctx, db, []string{"test.part"}); err != nil {
		t.Fatal(err)
	}
	if err := PrepareGroup(ctx, db, "test.part", "g", 2); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO ` + MessagesTable("test.part") + ` (uuid, payload, metadata, transaction_id)
		VALUES (gen_random_uuid()::text, '{}', json_build_object('partition_key', $1::text), pg_current_xact_id())`
	// Keys of both partitions: find one of each.
	var keys [2]string
	for i := 0; keys[0] == "" || keys[1] == ""; i++ {
		var p int
		key := "key-" + string(rune('a'+i))
		if err := db.Get(&p, `SELECT CASE WHEN $1::text = '' THEN 0 ELSE (hashtextextended($1::text, 0) & 9223372036854775807) % 2 END`, key); err != nil {
			t.Fatal(err)
		}
		if keys[p] == "" {
			keys[p] = key
		}
	}
	if _, err := db.Exec(insert, keys[0]); err != nil {
		t.Fatal(err)
	}
	// The reads see only what is older than every transaction still running
	// in the cluster, other tests' too: wait for the messages to be so.
	visible := func(n int) {
		t.Helper()
		end := time.Now().Add(10 * time.Second)
		for {
			var have int
			if err := db.Get(&have, `SELECT count(*) FROM `+MessagesTable("test.part")+` WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())`); err != nil {
				t.Fatal(err)
			}
			if have >= n {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%d messages visible to readers after 10 s; want %d", have, n)
			}
			time.Sleep(10 * time.Millisecond) // between two looks at the horizon
		}
	}
	read := func(p int) (rows int, xid *string) {
		t.Helper()
		q, err := partitionSchema{Schema, p, 2}.SelectQuery(watermillsql.SelectQueryParams{Topic: "test.part", ConsumerGroup: "g#" + string(rune('0'+p)), OffsetsAdapter: Offsets})
		if err != nil {
			t.Fatal(err)
		}
		tx, err := db.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Commit()
		r, err := tx.Query(q.Query, q.Args...)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			rows++
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if err := tx.Get(&xid, `SELECT pg_current_xact_id_if_assigned()::text`); err != nil {
			t.Fatal(err)
		}
		return rows, xid
	}
	offsetOf := func(group string) int64 {
		t.Helper()
		var o int64
		if err := db.Get(&o, `SELECT offset_acked FROM `+Offsets.MessagesOffsetsTable("test.part")+` WHERE consumer_group = $1`, group); err != nil {
			t.Fatal(err)
		}
		return o
	}
	visible(1)
	if rows, xid := read(0); rows != 1 || xid != nil {
		t.Errorf("partition 0 read %d rows, transaction id %v; want its one message and no id", rows, xid)
	}
	if rows, xid := read(1); rows != 0 || xid == nil || offsetOf("g#1") == 0 {
		t.Errorf("idle partition 1 read %d rows, transaction id %v, offset %d; want none, moved past partition 0's", rows, xid, offsetOf("g#1"))
	}
	// A transaction still open holds a message of partition 1 back: the
	// idle partition moves past what is visible only, never past it.
	open, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer open.Rollback()
	if _, err := open.Exec(insert, keys[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(insert, keys[0]); err != nil {
		t.Fatal(err)
	}
	read(1)
	if err := open.Commit(); err != nil {
		t.Fatal(err)
	}
	visible(3)
	if rows, _ := read(1); rows != 1 {
		t.Errorf("partition 1 read %d rows after the open transaction committed; want its message", rows)
	}
	// Acknowledged up to the stream's end, it finds nothing and writes
	// nothing.
	if _, err := db.Exec(`UPDATE ` + Offsets.MessagesOffsetsTable("test.part") + ` o SET offset_acked = m."offset", last_processed_transaction_id = m.transaction_id
		FROM (SELECT "offset", transaction_id FROM ` + MessagesTable("test.part") + ` ORDER BY transaction_id DESC, "offset" DESC LIMIT 1) m
		WHERE consumer_group = 'g#1'`); err != nil {
		t.Fatal(err)
	}
	if rows, xid := read(1); rows != 0 || xid != nil {
		t.Errorf("partition 1 at the stream's end read %d rows, transaction id %v; want none and no id", rows, xid)
	}
}
