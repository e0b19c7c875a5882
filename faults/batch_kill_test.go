//go:build faults

package faults

import (
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"shipd/platform/apptest"
	"shipd/platform/messaging/natstest"
)

// batchKillShare is the share of the batches written at the point of ADR
// 0048 that kill shipd: at the load's rate, an instance lives a second or
// two under it (from under one to several: the draw is the failpoint's).
const batchKillShare = "0.01"

// batchKillRate is the shipments sent a second: each is booked, has its
// parcel tracked and checked, and moves on its news, five or six events
// of the three groups' in all, which two shared cores keep up with.
const batchKillRate = 50

// hookEvents are what the scenario's subscription takes: the events the
// three batch-writing groups make or fan out.
var hookEvents = []string{"shipment.created", "shipment.updated", "shipment.status_changed", "tracking_parcel.created", "tracking_parcel.updated"}

// shipd killed with -9 again and again by the failpoint between a consumer
// group's batch written in its transaction and that transaction's commit
// (ADR 0048), while shipments with tracking are created: the batches of
// the webhook fan-out, of tracking the booked shipments' parcels and of
// the shipments following their tracking die with their acknowledgement,
// are read again after the restart, and a reader sees each applied once.
func TestKillMidBatch(t *testing.T) {
	killMidBatch(t, "faults_batch_kill", "PostgreSQL", 4)
}

// The same with the events read from the broker (ADR 0032): the reader's
// position is written, after the batch, in the same transaction. One kill:
// after each, the groups wait out JetStream's ack wait (10 s) for the
// messages the dead instance held and write no batch meanwhile, so each
// further kill would add that much to the suite.
func TestKillMidBatchOnTheBroker(t *testing.T) {
	ns := natstest.Start(t)
	killMidBatch(t, "faults_batch_kill_broker", "the event broker", 1, "EVENT_BROKER_URL="+ns.URL)
}

// killMidBatch has the failpoint kill shipd kills times under the load on
// backbone, then checks what a reader sees.
func killMidBatch(t *testing.T, database, backbone string, kills int, extraEnv ...string) {
	verdict := recordFailures(t)
	dsn, db := newDatabase(t, database)
	clk := newTestClock(t)
	rc := newReceiver(t)
	acc := newAccount(t, dsn, "batchkill", 1_000_000)
	journal := filepath.Join(t.TempDir(), "sandbox-journal.jsonl")
	env := append([]string{clk.env(), "SANDBOX_JOURNAL=" + journal}, extraEnv...)
	armed := append(slices.Clone(env), "SHIPD_TEST_FAILPOINT=group-batch-written="+batchKillShare)
	addr := apptest.FreeAddr(t)

	// The channel and the subscription are made by an instance without the
	// failpoint, whose batches would kill it before the load began.
	setup := startInstanceAt(t, "shipd-setup", dsn, addr, env...)
	c := setup.client(acc)
	subscription := subscribe(t, c, rc, "/batch", hookEvents)
	channel := sandboxChannel(t, c, "Batch kill main", true)
	if err := setup.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-setup.Exited()

	// Each instance is killed by its failpoint; the next starts on the same
	// address, which the load goes on sending to, with its clock 3 min
	// further on: bookings and webhook attempts the dead one had claimed
	// are taken again at once rather than after their leases (2 min, 7 s).
	current := launchInstance(t, "shipd-armed-0", dsn, addr, armed...)
	load := startLoadOf(loadShape{body: trackedShipmentBody, rate: batchKillRate}, []client{c}, channel, "BATCH", nil)
	for kill := range kills {
		before, started := len(load.acknowledged()), time.Now()
		eventually(verdict, 60*time.Second, fmt.Sprintf("kill %d: the failpoint kills shipd", kill+1), func() string {
			if current.Running() {
				return fmt.Sprintf("still running; %d writes acknowledged meanwhile", len(load.acknowledged())-before)
			}
			return ""
		})
		if ws, ok := current.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL || len(current.LogLines("TEST FAILPOINT group-batch-written")) == 0 {
			verdict.Fatalf("kill %d: shipd ended with %v, not by its failpoint's SIGKILL:\n%s", kill+1, current.Cmd.ProcessState, current.Tail(20))
		}
		t.Logf("kill mid-batch on %s: kill %d by the failpoint %s after the instance started, %d writes acknowledged meanwhile",
			backbone, kill+1, time.Since(started).Round(100*time.Millisecond), len(load.acknowledged())-before)
		clk.set(t, time.Duration(kill+1)*3*time.Minute)
		if kill < kills-1 {
			current = launchInstance(t, fmt.Sprintf("shipd-armed-%d", kill+1), dsn, addr, armed...)
		} else {
			current = launchInstance(t, "shipd-clean", dsn, addr, env...) // it finishes the work
		}
	}
	current.AwaitHealthy(t, current.url)
	load.awaitAcknowledged(verdict, len(load.acknowledged())+100, "writes acknowledged by the clean instance")
	load.halt()

	// Registered after the instances, so it runs before they are killed.
	t.Cleanup(func() {
		if t.Failed() {
			afterFault{db: db, acc: acc}.explainLag(t)
		}
	})
	m := midBatch{db: db, in: current, rc: rc, acc: acc, subscription: subscription, path: "/batch", journal: journal, load: load}
	drained := m.drained(verdict, 60*time.Second)
	f := m.appliedOnce(verdict)
	posts := load.posts()
	t.Logf("kill mid-batch on %s: %d kills by the failpoint (share %s); %d shipment POSTs (%s); drained %s after the load stopped; %s",
		backbone, kills, batchKillShare, len(posts), outcomes(answersOf(posts)), drained.Round(time.Millisecond), f)
}
