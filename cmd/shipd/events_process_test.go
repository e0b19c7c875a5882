package main_test

import (
	"context"
	"strings"
	"testing"

	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// shipd events list shows what consumers set aside; retry puts one back on
// its stream once, for its group, and refuses what is not a waiting letter.
func TestEventsCommands(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	runShipd(t, dsn, "migrate", "up")
	db, err := postgres.Open(context.Background(), dsn, postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO platform.dead_letters (consumer_group, stream, message_uuid, name, payload, metadata, error)
		VALUES ('shipments.shipment_list', 'shipments', 'evt_poison', 'shipment.updated', '{"broken":true}', '{"name":"shipment.updated"}', 'decoding: unexpected end of input')`); err != nil {
		t.Fatal(err)
	}
	list := runShipd(t, dsn, "events", "list")
	for _, want := range []string{"shipments.shipment_list", "shipment.updated", "evt_poison", "decoding: unexpected end of input"} {
		if !strings.Contains(list, want) {
			t.Errorf("events list does not show %q:\n%s", want, list)
		}
	}
	if out := runShipd(t, dsn, "events", "retry", "1"); !strings.Contains(out, "dead letter 1 is back on its stream") {
		t.Errorf("retry said %q", out)
	}
	var group string
	if err := db.Get(&group, `SELECT metadata->>'for_consumer_group' FROM "watermill_shipments" WHERE uuid = 'evt_poison'`); err != nil || group != "shipments.shipment_list" {
		t.Errorf("the retried message on the stream: group %q, %v", group, err)
	}
	if list := runShipd(t, dsn, "events", "list"); strings.Contains(list, "evt_poison") {
		t.Errorf("a retried letter is still listed as waiting:\n%s", list)
	}
	if list := runShipd(t, dsn, "events", "list", "--all"); !strings.Contains(list, "evt_poison") {
		t.Errorf("--all does not list the retried letter:\n%s", list)
	}
	for _, args := range [][]string{{"events", "retry", "1"}, {"events", "retry", "x"}, {"events", "retry", "0"}} {
		if _, stderr, code := runShipdStatus(t, dsn, args...); code == 0 {
			t.Errorf("shipd %s succeeded; stderr %s", strings.Join(args, " "), stderr)
		}
	}
}
