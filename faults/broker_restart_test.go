//go:build faults

package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/messaging/natstest"
)

// NATS crashed (kill -9) and started again while shipd, with
// EVENT_BROKER_URL, serves a write load and reads its events from the
// broker: writes go on being acknowledged, /readyz says the broker is away,
// and once it is back every event the writes published reaches its
// module's JetStream stream once, each resource's events in their order,
// and from there the list and the webhook receiver, as after any fault
// (ADR 0032).
func TestEventBrokerRestartDuringWrites(t *testing.T) {
	dsn, db := newDatabase(t, "faults_broker")
	rc := newReceiver(t)
	ns := natstest.Start(t)
	acc := newAccount(t, dsn, "broker", 1_000_000)
	in := startInstance(t, "shipd", dsn, "EVENT_BROKER_URL="+ns.URL)
	c := in.client(acc)
	subscribe(t, c, rc, "/broker", loadEvents)
	channel, spares := loadChannels(t, c, "Broker")
	load := startWriteLoad([]client{c}, channel, "NB1", spares)
	load.awaitAcknowledged(t, 150, "writes acknowledged before the broker stops")
	ns.Kill()
	stopped := time.Now()
	eventually(t, 10*time.Second, "/readyz saying the broker is away", func() string {
		status, body := readyz(t, in)
		if status != http.StatusOK || !strings.Contains(body["event_broker"], "unreachable") {
			return fmt.Sprintf("%d %v", status, body)
		}
		return ""
	})
	time.Sleep(3 * time.Second) // the outage under the write load: its length is the scenario
	ns.Restart()
	restarted := time.Now()
	time.Sleep(2 * time.Second) // the load goes on a while with the broker back
	load.halt()

	answers := load.allAnswers()
	if failed := len(answers) - countOK(answers); failed > 0 {
		t.Errorf("writes must not depend on the broker; %d failed: %s", failed, outcomes(answers))
	}
	whileDown := 0
	for _, a := range answers {
		if a.ok() && a.sent.After(stopped) && a.done().Before(restarted) {
			whileDown++
		}
	}
	if whileDown == 0 {
		t.Error("no write was acknowledged while the broker was away")
	}

	events := published(t, oneDatabase(db), acc.id, loadEvents)
	byID := make(map[string]publishedEvent, len(events))
	for _, e := range events {
		byID[e.id] = e
	}
	var counts map[string]int
	eventually(t, 60*time.Second, "every published event on the broker", func() string {
		counts = brokerEventCounts(t, ns.URL, byID)
		missing := 0
		for id := range byID {
			if counts[id] == 0 {
				missing++
			}
		}
		if missing > 0 {
			return fmt.Sprintf("%d of %d not there yet", missing, len(byID))
		}
		return ""
	})
	var twice []string
	for id, n := range counts {
		if n > 1 {
			twice = append(twice, fmt.Sprintf("%s × %d", id, n))
		}
	}
	if len(twice) > 0 {
		t.Errorf("events stored on the broker more than once: %s", summarise(twice))
	}
	// A crash may lose a consumer's last acknowledgement: that message comes
	// again after JetStream's ack wait (10 s), its group waiting meanwhile.
	f := afterFault{c: c, db: db, acc: acc, load: load, rc: rc, path: "/broker", within: 60 * time.Second}.nothingLost(t)
	t.Logf("event broker crash: %d writes (%s), %d acknowledged while the broker was away; %d events published, each on the broker once, in each resource's order; %s",
		len(answers), outcomes(answers), whileDown, len(byID), f)
}

// brokerEventCounts counts, by id, the account's events on the broker's
// module streams, and fails the test when one resource's events are out of
// the order of their versions there.
func brokerEventCounts(t *testing.T, url string, account map[string]publishedEvent) map[string]int {
	t.Helper()
	counts := map[string]int{}
	last := map[string]int{} // resource → version last seen
	// A resource's events are all in one partition's stream (ADR 0050).
	var messages []*jetstream.RawStreamMsg
	for _, stream := range []string{"channels", "shipments", "tracking"} {
		for p := range config.DefaultEventPartitions {
			messages = append(messages, natstest.Messages(t, url, messaging.BrokerPartitionStream(stream, p, config.DefaultEventPartitions))...)
		}
	}
	for _, m := range messages {
		e, ok := account[m.Header.Get(nats.MsgIdHdr)]
		if !ok {
			continue // another account's, or a type the load does not count
		}
		counts[e.id]++
		// One change may publish two events of one version
		// (updated and status_changed); an older one after is out of order.
		if e.version < last[e.resourceID] && counts[e.id] == 1 {
			t.Fatalf("%s %s (version %d) came after version %d of its resource on the broker", e.eventType, e.resourceID, e.version, last[e.resourceID])
		}
		last[e.resourceID] = max(last[e.resourceID], e.version)
	}
	return counts
}

// readyz asks the instance's /readyz.
func readyz(t *testing.T, in *instance) (int, map[string]string) {
	t.Helper()
	res, err := http.Get(in.url + "/readyz")
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var body map[string]string
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

// shipd started while NATS is down serves at once: writes are acknowledged,
// /readyz says the broker is away, and once NATS comes up the handlers
// subscribe and every write reaches the list and the webhook receiver.
func TestShipdStartsWhileTheEventBrokerIsDown(t *testing.T) {
	dsn, db := newDatabase(t, "faults_broker_start")
	rc := newReceiver(t)
	ns := natstest.Start(t)
	ns.Stop()
	acc := newAccount(t, dsn, "brokerstart", 1_000_000)
	in := startInstance(t, "shipd", dsn, "EVENT_BROKER_URL="+ns.URL)
	c := in.client(acc)
	if status, body := readyz(t, in); status != http.StatusOK || !strings.Contains(body["event_broker"], "unreachable") {
		t.Fatalf("/readyz with the broker down: %d %v", status, body)
	}
	subscribe(t, c, rc, "/start", loadEvents)
	channel, spares := loadChannels(t, c, "Start")
	load := startWriteLoad([]client{c}, channel, "NBS", spares)
	load.awaitAcknowledged(t, 100, "writes acknowledged with the broker down")
	ns.Restart()
	time.Sleep(time.Second) // the load goes on a while with the broker back
	load.halt()
	if answers := load.allAnswers(); countOK(answers) != len(answers) {
		t.Errorf("writes must not depend on the broker: %s", outcomes(answers))
	}
	f := afterFault{c: c, db: db, acc: acc, load: load, rc: rc, path: "/start", within: 60 * time.Second}.nothingLost(t)
	t.Logf("shipd started with the broker down: %s", f)
}
