package messaging_test

import (
	"bytes"
	"context"
	"testing"

	"shipd/platform/messaging"
)

// weighed is at version 2: grams replaced kilograms.
type weighed struct {
	Grams int `json:"grams"`
}

func (weighed) EventType() string   { return "test.weighed" }
func (weighed) EventStream() string { return "test.stream" }
func (weighed) EventVersion() int   { return 2 }

func init() {
	messaging.RegisterUpcaster(messaging.Upcaster{EventType: "test.weighed", From: 1, Upcast: func(p []byte) ([]byte, error) {
		// {"kg":N} → {"grams":N000}: enough for the test's payloads.
		return append([]byte(`{"grams":`), append(bytes.TrimSuffix(bytes.TrimPrefix(p, []byte(`{"kg":`)), []byte("}")), []byte(`000}`)...)...), nil
	}})
}

// An event stored at version 1 (or with no version, as before versions) is
// read through its upcaster; one at the current version as it is; one newer
// than the code is refused, not misread.
func TestOldEventsAreReadThroughTheirUpcasters(t *testing.T) {
	e := newEnv(t)
	var got recorder
	if err := onEvent(e.bus, "test.scale", func(ctx context.Context, w *weighed) error {
		got.add(w.Grams, messaging.MessageID(ctx))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, row := range []struct{ uuid, payload, metadata string }{
		{"evt_1", `{"kg":3}`, `{"name":"test.weighed"}`},
		{"evt_2", `{"kg":4}`, `{"name":"test.weighed","version":"1"}`},
		{"evt_3", `{"grams":5}`, `{"name":"test.weighed","version":"2"}`},
		{"evt_4", `{"grams":6,"unit":"g"}`, `{"name":"test.weighed","version":"3"}`},
	} {
		if _, err := e.db.ExecContext(ctx, `INSERT INTO "watermill_test.stream" (uuid, payload, metadata, transaction_id)
			VALUES ($1, $2, $3, pg_current_xact_id())`, row.uuid, row.payload, row.metadata); err != nil {
			t.Fatal(err)
		}
	}
	e.publish(weighed{Grams: 7})
	e.start()
	eventually(t, "the readable events arrive", func() bool { return got.len() >= 4 })
	ns, _ := got.seen()
	if len(ns) != 4 || ns[0] != 3000 || ns[1] != 4000 || ns[2] != 5 || ns[3] != 7 {
		t.Errorf("read %v, want [3000 4000 5 7] (evt_4 is newer than this code and set aside)", ns)
	}
	// The dead letter commits with the batch that set it aside, which the
	// handler's last event can beat.
	var (
		dead []messaging.DeadLetter
		err  error
	)
	eventually(t, "the dead letter committed", func() bool {
		dead, err = messaging.DeadLetters(ctx, e.db, true, 10)
		return err != nil || len(dead) > 0
	})
	if err != nil || len(dead) != 1 || dead[0].MessageUUID != "evt_4" {
		t.Errorf("dead letters = %+v, %v; want evt_4, too new to read", dead, err)
	}
	var version string
	if err := e.db.GetContext(ctx, &version, `SELECT metadata->>'version' FROM "watermill_test.stream" WHERE payload::text LIKE '%7%'`); err != nil || version != "2" {
		t.Errorf("a published event's version = %q, %v; want 2", version, err)
	}
}
