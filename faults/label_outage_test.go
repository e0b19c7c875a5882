//go:build faults

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
)

// The carrier's label service fails for a while under load (the sandbox's
// SANDBOX_FAIL_LABELS_FOR, at every start), and shipd dies twice in the
// middle: once by its failpoint between a carrier's answer and its record,
// once by kill -9 from outside. Afterwards every shipment the API accepted
// is created with its label, and the sandbox's own journal of bookings
// (shared by the instances, as a carrier's records are) shows exactly one
// booking per shipment (ADR 0041).
func TestLabelOutageAndKillsBookEachShipmentOnce(t *testing.T) {
	dsn, db := newDatabase(t, "faults_labels")
	clk := newTestClock(t)
	acc := newAccount(t, dsn, "labels", 1_000_000)
	journal := filepath.Join(t.TempDir(), "sandbox-journal.jsonl")
	env := func(extra ...string) []string {
		return append([]string{clk.env(), "SANDBOX_JOURNAL=" + journal, "SANDBOX_FAIL_LABELS_FOR=6s"}, extra...)
	}

	// Round 1: the failpoint kills shipd right after a carrier answered a
	// booking, before shipd recorded the answer.
	first := startInstance(t, "shipd-labels-1", dsn, env("SHIPD_TEST_FAILPOINT=booking-after-carrier-answer=0.02")...)
	c := first.client(acc)
	channel := sandboxChannel(t, c, "Labels", true)
	load := startWriteLoad([]client{c}, channel, "LABELS", nil)
	eventually(t, 60*time.Second, "the failpoint kills shipd between a carrier's answer and its record", func() string {
		if first.Running() {
			return "still running"
		}
		return ""
	})
	if ws, ok := first.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("shipd ended with %v, not by its failpoint:\n%s", first.Cmd.ProcessState, first.Tail(20))
	}
	load.halt()

	// Round 2: a new instance, its label service failing again; killed from
	// outside while labels are being fetched.
	clk.set(t, 3*time.Minute) // the dead instance's booking leases (2 min) have run out
	second := startInstance(t, "shipd-labels-2", dsn, env()...)
	load2 := startWriteLoad([]client{second.client(acc)}, channel, "LABELS2", nil)
	load2.awaitAcknowledged(t, 150, "writes acknowledged by the second instance")
	var held int
	if err := db.QueryRow(`SELECT count(*) FROM shipments.shipments WHERE account_id = $1 AND status = 'pending'
		AND state->>'provider_shipment_id' <> ''`, acc.id).Scan(&held); err != nil {
		t.Fatal(err)
	}
	second.Kill()
	load2.halt()

	// Round 3: a clean instance finishes every booking.
	clk.set(t, 6*time.Minute)
	third := startInstance(t, "shipd-labels-3", dsn, env()...)
	acked := load.acknowledged()
	for id, p := range load2.acknowledged() {
		acked[id] = p
	}
	eventually(t, 120*time.Second, "every accepted shipment created with its label", func() string {
		var unfinished int
		if err := db.QueryRow(`SELECT count(*) FROM shipments.shipments WHERE account_id = $1
			AND NOT (status = 'created' AND (state->>'has_label')::boolean)`, acc.id).Scan(&unfinished); err != nil {
			return err.Error()
		}
		if unfinished > 0 {
			return fmt.Sprintf("%d not yet", unfinished)
		}
		return ""
	})
	_ = third

	bookings, err := sandbox.Bookings(journal)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	rows, err := db.Query(`SELECT id FROM shipments.shipments WHERE account_id = $1`, acc.id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var twice, never []string
	total, most := 0, 0
	for key, n := range bookings {
		total += n
		most = max(most, n)
		if n > 1 {
			var state string
			var attempts int
			_ = db.QueryRow(`SELECT state::text, attempts FROM shipments.shipments WHERE id = $1`, key).Scan(&state, &attempts)
			twice = append(twice, fmt.Sprintf("%s ×%d (%d attempts; journal: %s; %s)", key, n, attempts, journalLines(t, journal, key), state))
		}
		if !slices.Contains(ids, key) {
			twice = append(twice, key+" (booked, but no such shipment)")
		}
	}
	for _, p := range acked {
		if bookings[p.id] == 0 {
			never = append(never, p.id)
		}
	}
	if len(twice) > 0 {
		t.Errorf("the carrier holds more than one booking of a shipment: %s", summarise(twice))
	}
	if len(never) > 0 {
		t.Errorf("accepted shipments the carrier never booked: %s", summarise(never))
	}
	t.Logf("label outage and two kills: %d shipments accepted, %d stored, %d bookings at the carrier (at most %d per shipment); %d held by the carrier without a label at the outside kill",
		len(acked), len(ids), total, most, held)
}

// journalLines are the sandbox journal's lines naming key, numbered.
func journalLines(t *testing.T, path, key string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var out []string
	for i, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, key) {
			if j := strings.Index(line, `"reference"`); j > 0 {
				line = line[:j]
			}
			out = append(out, fmt.Sprintf("line %d: %s", i+1, line))
		}
	}
	return strings.Join(out, " | ")
}
