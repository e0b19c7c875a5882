//go:build faults

package faults

import (
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"shipd/platform/apptest"
	"shipd/platform/failpoint"
	"shipd/platform/messaging/natstest"
)

// dispatchChannels is how many sandbox channels the load orders pickups
// and makes manifests on: with about 50 days each ahead, enough days for
// every pickup the scenario orders.
const dispatchChannels = 12

// dispatchKills are the failpoint rounds, in order, and the share of
// passes that kill. The manifest round comes first, while the dispatch
// process knows the shipments the setup booked: after a kill its copy of
// the shipments stream waits out the broker's ack wait for the messages
// the dead process held, and manifests would find little to hand over.
var dispatchKills = []struct{ point, share string }{
	{failpoint.ManifestCreatingStored, "0.25"},
	{failpoint.PickupOrderingStored, "0.05"},
	{failpoint.PickupAfterCarrierAnswer, "0.05"},
}

// The dispatch module as a process of its own, killed with -9 under load
// (issue 33): by its failpoints at each of its recovery points (a manifest
// stored as being created; a pickup stored as being ordered, its carrier
// not asked; a pickup its carrier confirmed, not yet recorded), then from
// outside, and started again each time. It runs as in the split
// deployment (ADR 0033, 0034): channels, shipments and dispatch each a
// process, shipments and dispatch on databases of their own, NATS between
// them; tracking and webhooks, which the scenario does not look at, are
// left out. The sandbox keeps every pickup order in its journal, as a
// carrier keeps its orders whatever happens to shipd.
//
// Afterwards: no pickup was ordered at the carrier twice; every pickup is
// scheduled under the number the carrier gave, or unconfirmed (its answer
// lost: shipd never orders it again by itself), none is left being
// ordered, and none the carrier holds was forgotten (ADR 0041); every
// manifest is created with its document downloadable, or was forgotten
// with its shipments let go: a last manifest of each channel then hands
// over what no manifest holds, and every created shipment is on exactly
// one manifest.
func TestDispatchProcessKilledUnderLoad(t *testing.T) {
	verdict := recordFailures(t)
	dsn, db := newDatabase(t, "faults_dispatch")
	shipmentsDSN, shipmentsDB := moduleDatabase(t, db, dsn, "faults_dispatch_shipments")
	dispatchDSN, dispatchDB := moduleDatabase(t, db, dsn, "faults_dispatch_dispatch")
	ns := natstest.Start(t)
	acc := newAccount(t, dsn, "dispatch", 1_000_000)
	journal := filepath.Join(t.TempDir(), "sandbox-journal.jsonl")
	env := []string{"EVENT_BROKER_URL=" + ns.URL, "INTERNAL_TOKEN=fault-suite-internal-token-0123456789",
		"SHIPMENTS_DATABASE_URL=" + shipmentsDSN, "DISPATCH_DATABASE_URL=" + dispatchDSN, "SANDBOX_JOURNAL=" + journal}
	with := func(more ...string) []string { return slices.Concat(env, more) }
	channels := startInstance(t, "channels", dsn, with("SHIPD_MODULES=channels")...)
	env = with("CHANNELS_URL=" + channels.url)
	shipments := startInstance(t, "shipments", dsn, with("SHIPD_MODULES=shipments")...)
	// A 2 s carrier timeout: what a killed process left half-way counts as
	// left behind 4 s on (twice the timeout, the longest a live request
	// asks the carrier), rather than a minute.
	dispatchEnv := with("SHIPD_MODULES=dispatch", "CARRIER_TIMEOUT=2s")
	addr := apptest.FreeAddr(t)
	setup := startInstanceAt(t, "dispatch-setup", dsn, addr, dispatchEnv...)

	var chans []string
	for i := range dispatchChannels {
		chans = append(chans, sandboxChannel(t, channels.client(acc), fmt.Sprintf("Dispatch %d", i+1), true))
	}
	dc := setup.client(acc) // the same address through every restart
	load := newDispatchLoad(shipments.client(acc), dc, chans)
	t.Cleanup(load.halt)
	load.startShipments()
	eventually(verdict, 60*time.Second, "the dispatch process knows shipments as created", func() string {
		if n := countRows(dispatchDB, `SELECT count(*) FROM dispatch.shipments WHERE account_id = $1 AND status = 'created'`, acc.id); n < 80 {
			return fmt.Sprintf("%d of 80", n)
		}
		return ""
	})
	// Stopped gracefully, so its consumers acknowledged what they read and
	// the next process reads the shipments stream on at once.
	if err := setup.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-setup.Exited()
	load.startDispatch()

	// Each round's process is killed by its failpoint; the next starts on
	// the same address, which the load goes on sending to.
	left := map[string]leftovers{}
	var rounds []string
	for i, k := range dispatchKills {
		in := launchInstance(t, fmt.Sprintf("dispatch-%d", i+1), dsn, addr, append(slices.Clone(dispatchEnv), "SHIPD_TEST_FAILPOINT="+k.point+"="+k.share)...)
		started := time.Now()
		eventually(verdict, 60*time.Second, k.point+": the failpoint kills the dispatch process", func() string {
			if in.Running() {
				return "still running"
			}
			return ""
		})
		if ws, ok := in.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL || len(in.LogLines("TEST FAILPOINT "+k.point)) == 0 {
			verdict.Fatalf("%s: the dispatch process ended with %v, not by its failpoint's SIGKILL:\n%s", k.point, in.Cmd.ProcessState, in.Tail(20))
		}
		left[k.point] = leftBehind(dispatchDB, acc.id)
		rounds = append(rounds, fmt.Sprintf("%s after %s (left %s)", k.point, time.Since(started).Round(100*time.Millisecond), left[k.point]))
	}

	// Then kill -9 from outside, whatever the process is doing.
	outside := startInstanceAt(t, "dispatch-outside", dsn, addr, dispatchEnv...)
	pickups, _, _, _, _ := load.snapshot()
	before := acknowledgedOf(pickups)
	eventually(verdict, 60*time.Second, "pickups ordered before the kill from outside", func() string {
		pickups, _, _, _, _ := load.snapshot()
		if n := acknowledgedOf(pickups) - before; n < 20 {
			return fmt.Sprintf("%d of 20", n)
		}
		return ""
	})
	outside.Kill()
	left["kill -9"] = leftBehind(dispatchDB, acc.id)
	rounds = append(rounds, fmt.Sprintf("kill -9 from outside (left %s)", left["kill -9"]))
	time.Sleep(500 * time.Millisecond) // the load meets the dead process a while

	startInstanceAt(t, "dispatch-final", dsn, addr, dispatchEnv...)
	pickups, manifests, _, _, _ := load.snapshot()
	pickupsBefore, manifestsBefore := acknowledgedOf(pickups), acknowledgedOf(manifests)
	eventually(verdict, 60*time.Second, "pickups and manifests made by the restarted process", func() string {
		pickups, manifests, _, _, _ := load.snapshot()
		p, m := acknowledgedOf(pickups)-pickupsBefore, acknowledgedOf(manifests)-manifestsBefore
		if p < 20 || m < 3 {
			return fmt.Sprintf("%d of 20 pickups, %d of 3 manifests", p, m)
		}
		return ""
	})
	load.halt()
	halted := time.Now()

	// Registered after the processes, so it runs before they are killed.
	t.Cleanup(func() {
		if t.Failed() {
			explainBrokerLag(t, ns.URL, map[string]*sql.DB{"platform": db, "shipments": shipmentsDB, "dispatch": dispatchDB})
		}
	})
	eventually(verdict, 60*time.Second, "what the killed processes left half-way settled", func() string {
		if l := leftBehind(dispatchDB, acc.id); len(l.pickups)+len(l.manifests) > 0 {
			return "still " + l.String()
		}
		return ""
	})
	settled := time.Since(halted)
	created := everyShipmentKnown(verdict, shipmentsDB, dispatchDB, acc.id)
	// A last manifest of each channel hands over every created shipment no
	// manifest holds: those of the forgotten ones among them.
	var last []dispatchPost
	for _, ch := range chans {
		a := dc.call(http.MethodPost, "/v1/manifests", map[string]any{"shipping_channel_id": ch})
		if !a.ok() && a.status != http.StatusUnprocessableEntity {
			verdict.Errorf("the last manifest of channel %s: %s", ch, a)
		}
		last = append(last, posted(ch, a))
	}

	pickups, manifests, posts, slotsLeft, refused := load.snapshot()
	x := dispatchAfterKills{t: verdict, c: dc, db: dispatchDB, acc: acc, journal: journal, left: left}
	pf := x.pickupsOrderedOnce(pickups)
	mf := x.manifestsWhole(slices.Concat(manifests, last), created)
	unexpected(verdict, "shipment POSTs", posts, http.StatusCreated)
	unexpected(verdict, "pickup POSTs", dispatchAnswers(pickups), http.StatusCreated, http.StatusServiceUnavailable, 0)
	unexpected(verdict, "manifest POSTs", dispatchAnswers(manifests), http.StatusCreated, http.StatusUnprocessableEntity, http.StatusServiceUnavailable, 0)

	t.Logf("dispatch process killed under load: %s; started again each time; what was left half-way settled %s after the load stopped",
		strings.Join(rounds, "; "), settled.Round(100*time.Millisecond))
	t.Logf("dispatch load: %d shipment POSTs (%s); %d pickup POSTs (%s), %d channel days never ordered; %d manifest POSTs (%s); %d requests refused at connect while the process was down",
		len(posts), outcomes(posts), len(pickups), outcomes(dispatchAnswers(pickups)), slotsLeft, len(manifests), outcomes(dispatchAnswers(manifests)), refused)
	t.Logf("dispatch after the kills: %s; %s", pf, mf)
}

// unexpected fails t for the answers whose status is not among allowed
// (0: no answer at all, the process died holding the request).
func unexpected(t testing.TB, what string, answers []answer, allowed ...int) {
	t.Helper()
	var bad []string
	for _, a := range answers {
		status := a.status
		if a.err != nil {
			status = 0
		}
		if !slices.Contains(allowed, status) {
			bad = append(bad, a.String())
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s answered otherwise than %v: %s", what, allowed, summarise(bad))
	}
}

// countRows is a count query's answer, -1 when it failed (a diagnostic
// then, never a pass).
func countRows(db *sql.DB, query string, args ...any) int {
	n := -1
	_ = db.QueryRow(query, args...).Scan(&n)
	return n
}
