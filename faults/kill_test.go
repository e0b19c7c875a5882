//go:build faults

package faults

import (
	"fmt"
	"testing"
	"time"
)

// kill -9 of shipd while shipments are being created and channels updated,
// then a restart: every write answered 2xx is stored, the list read model
// shows it as the write model holds it, and every event published for it
// reached the webhook receiver at least once.
func TestKillDuringWrites(t *testing.T) {
	dsn, db := newDatabase(t, "faults_kill")
	clk := newTestClock(t)
	rc := newReceiver(t)
	acc := newAccount(t, dsn, "kill", 1_000_000)
	first := startInstance(t, "shipd-1", dsn, clk.env())
	c := first.client(acc)
	subscribe(t, c, rc, "/kill", loadEvents)
	channel, spares := loadChannels(t, c, "Kill")

	load := startWriteLoad([]client{c}, channel, "KILL", spares)
	// Kill once the load is in full swing: enough acknowledged writes, and
	// webhook attempts held unanswered at the receiver, so shipd dies with
	// them in flight and can never have recorded them.
	load.awaitAcknowledged(t, 250, "writes acknowledged before the kill")
	rc.hold()
	eventually(t, 10*time.Second, "webhook attempts in flight before the kill", func() string {
		if len(rc.inFlight()) < 3 {
			return fmt.Sprintf("%d in flight", len(rc.inFlight()))
		}
		return ""
	})
	hooksInFlight := rc.inFlight()
	inFlight := load.inFlight.Load()
	first.Kill()
	killed := time.Now()
	rc.release()
	load.halt()

	// What the dead instance held: bookings and webhook attempts it had
	// claimed keep their leases (2 min and 7 s) and are retaken after them.
	var leasedBookings, leasedDeliveries int
	if err := db.QueryRow(`SELECT count(*) FROM shipments.shipments WHERE account_id = $1 AND booking_due AND lease_until > now()`, acc.id).Scan(&leasedBookings); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM webhooks.deliveries WHERE account_id = $1 AND outcome = 'pending' AND lease_until > now()`, acc.id).Scan(&leasedDeliveries); err != nil {
		t.Fatal(err)
	}
	var pendingBookings int
	if err := db.QueryRow(`SELECT count(*) FROM shipments.shipments WHERE account_id = $1 AND booking_due`, acc.id).Scan(&pendingBookings); err != nil {
		t.Fatal(err)
	}
	// Rather than wait out the 2 min booking lease, the restarted instance
	// runs 3 min ahead (the suite's test clock; nothing is in flight now).
	clk.set(t, 3*time.Minute)
	restart := time.Now()
	second := startInstance(t, "shipd-2", dsn, clk.env())
	restartTook := time.Since(restart)

	f := afterFault{c: second.client(acc), db: db, acc: acc, load: load, rc: rc, path: "/kill", within: 60 * time.Second}.nothingLost(t)
	// An attempt the receiver had when shipd died was never recorded, so
	// the restarted instance makes it again: at least once, not at most.
	var again []string
	for _, h := range hooksInFlight {
		made := false
		for _, later := range rc.received("/kill") {
			made = made || (later.eventID == h.eventID && later.at.After(killed))
		}
		if !made {
			again = append(again, fmt.Sprintf("%s %s", h.eventType, h.eventID))
		}
	}
	if len(again) > 0 {
		t.Errorf("attempts in flight at the kill were not made again after the restart: %s", summarise(again))
	}
	posts := load.posts()
	t.Logf("kill -9: %d shipment POSTs (%s); channel updates: %s; API requests in flight at the kill: %d",
		len(posts), outcomes(answersOf(posts)), outcomes(load.updateAnswers()), inFlight)
	t.Logf("kill -9: at the kill %d shipments awaited booking, %d of them leased to the dead instance; %d webhook deliveries leased to it, %d attempts in flight at the receiver, all made again after the restart",
		pendingBookings, leasedBookings, leasedDeliveries, len(hooksInFlight))
	t.Logf("kill -9: restart answered /healthz after %s; %s", restartTook.Round(time.Millisecond), f)
}
