//go:build faults

package faults

import (
	"bufio"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"shipd/adapters/carriers/sandbox"
	"shipd/platform/apptest"
	"shipd/platform/messaging/natstest"
)

// The split deployment (ADR 0033, 0034) under a write load through nginx:
// channels, webhooks and dispatch on the platform database, shipments and
// tracking on databases of their own, two tracking instances, NATS
// JetStream between them. Each module process in turn is killed with -9 and started again.
// Meanwhile the other modules keep serving their routes; afterwards every
// acknowledged write is stored and listed, every event delivered at least
// once, and the two tracking instances have both checked parcels, none of
// them twice at once (no tracking parcel version published twice).
func TestModuleProcessesKilledUnderLoad(t *testing.T) {
	verdict := recordFailures(t)
	dsn, db := newDatabase(t, "faults_split")
	shipmentsDSN, shipmentsDB := moduleDatabase(t, db, dsn, "faults_split_shipments")
	trackingDSN, trackingDB := moduleDatabase(t, db, dsn, "faults_split_tracking")
	rc := newReceiver(t)
	ns := natstest.Start(t)
	acc := newAccount(t, dsn, "split", 1_000_000)

	env := []string{"EVENT_BROKER_URL=" + ns.URL, "INTERNAL_TOKEN=fault-suite-internal-token-0123456789",
		"SHIPMENTS_DATABASE_URL=" + shipmentsDSN, "TRACKING_DATABASE_URL=" + trackingDSN,
		// Sandbox journeys in seconds, so the tracking instances have work.
		"SANDBOX_TIME_SCALE=3600"}
	// A slice of its own for each: a restart starts the process again with it.
	with := func(more ...string) []string { return slices.Concat(env, more) }
	channels := startInstance(t, "channels", dsn, with("SHIPD_MODULES=channels")...)
	env = with("CHANNELS_URL=" + channels.url)
	procs := map[string]*instance{
		"channels":   channels,
		"shipments":  startInstance(t, "shipments", dsn, with("SHIPD_MODULES=shipments")...),
		"tracking":   startInstance(t, "tracking", dsn, with("SHIPD_MODULES=tracking")...),
		"tracking-b": startInstance(t, "tracking-b", dsn, with("SHIPD_MODULES=tracking")...),
		"webhooks":   startInstance(t, "webhooks", dsn, with("SHIPD_MODULES=webhooks", "LOG_LEVEL="+cmp.Or(os.Getenv("SHIPD_FAULTS_WEBHOOKS_LOG"), "warn"))...),
		// Dispatch follows the shipments stream (its copy) on the platform
		// database; the load orders no pickup, so its kill shows the
		// others serve without it and it catches up after.
		"dispatch": startInstance(t, "dispatch", dsn, with("SHIPD_MODULES=dispatch")...),
	}
	hostOf := func(name string) string { u, _ := url.Parse(procs[name].url); return u.Host }
	proxy := apptest.StartProxy(t, map[string][]string{
		"channels": {hostOf("channels")}, "shipments": {hostOf("shipments")},
		"tracking": {hostOf("tracking"), hostOf("tracking-b")}, "webhooks": {hostOf("webhooks")}, "dispatch": {hostOf("dispatch")},
	})
	c := client{base: proxy, key: acc.key}
	subscribe(t, c, rc, "/split", loadEvents)
	channel, spares := loadChannels(t, c, "Split")
	// Tracking parcels of their own, moving along sandbox journeys, give the
	// two tracking instances checks to share.
	for i := range 60 {
		number := sandbox.S10("SB", fmt.Sprintf("0%07d", i+1), "CZ")
		if a := c.call(http.MethodPost, "/v1/tracking-parcels", map[string]any{"tracking_number": number, "shipping_channel_id": channel}); !a.ok() {
			t.Fatalf("tracking parcel %s: %s", number, a)
		}
	}
	load := startWriteLoad([]client{c}, channel, "SPL", spares)
	load.awaitAcknowledged(verdict, 100, "writes acknowledged through the proxy before the first kill")
	// The two tracking instances share the checks (each claims due parcels
	// for itself, FOR UPDATE SKIP LOCKED).
	var checks []string
	eventually(verdict, 30*time.Second, "both tracking instances checking parcels", func() string {
		checks = checks[:0]
		for _, name := range []string{"tracking", "tracking-b"} {
			n := trackCalls(t, procs[name])
			checks = append(checks, fmt.Sprintf("%s %d", name, n))
			if n == 0 {
				return name + " made no check yet"
			}
		}
		return ""
	})

	// Each in turn: killed, the others asked meanwhile, started again.
	otherRoute := map[string]string{"channels": "/v1/shipments", "shipments": "/v1/shipping-channels",
		"tracking": "/v1/webhook-subscriptions", "webhooks": "/v1/tracking-parcels", "dispatch": "/v1/shipments"}
	var served []string
	clk := newTestClock(t)
	for _, name := range []string{"shipments", "tracking", "webhooks", "dispatch", "channels"} {
		if name == "shipments" {
			// The bookings the killed process had claimed keep their 2 min
			// lease; rather than wait it out, the restarted process runs
			// 3 min ahead (the suite's test clock).
			procs[name].env = append(slices.Clone(procs[name].env), clk.env())
			clk.set(t, 3*time.Minute)
		}
		procs[name].Kill()
		time.Sleep(500 * time.Millisecond) // the write load meets the dead process a while first
		if a := c.call(http.MethodGet, otherRoute[name], nil); !a.ok() {
			verdict.Errorf("with %s killed, GET %s through the proxy: %s", name, otherRoute[name], a)
		} else {
			served = append(served, fmt.Sprintf("%s down: GET %s %d", name, otherRoute[name], a.status))
		}
		time.Sleep(time.Second) // down a while longer under the load
		procs[name] = procs[name].restart(t)
		time.Sleep(1500 * time.Millisecond) // the load runs on through the restarted process before the next kill
	}
	// Registered after the restarts, so it runs before their processes are
	// killed at the end.
	t.Cleanup(func() {
		if t.Failed() {
			explainBrokerLag(t, ns.URL, map[string]*sql.DB{"platform": db, "shipments": shipmentsDB, "tracking": trackingDB})
			if dir := os.Getenv("SHIPD_FAULTS_STACKS"); dir != "" {
				for name, in := range procs {
					_ = in.Cmd.Process.Signal(syscall.SIGQUIT)
					<-in.Exited()
					_ = os.WriteFile(filepath.Join(dir, name+".log"), []byte(in.Log()), 0o644)
				}
			}
		}
	})
	load.awaitAcknowledged(verdict, len(load.acknowledged())+50, "writes acknowledged after every process came back")
	load.halt()

	answers := load.allAnswers()
	var unexpected []string
	for _, a := range answers {
		if !a.ok() && a.status != http.StatusServiceUnavailable && a.status != http.StatusBadGateway && a.err == nil {
			unexpected = append(unexpected, a.String())
		}
	}
	if len(unexpected) > 0 {
		verdict.Errorf("answers other than 2xx or 503 while processes were killed: %s", summarise(unexpected))
	}

	databases := func(stream string) *sql.DB {
		switch stream {
		case "shipments":
			return shipmentsDB
		case "tracking":
			return trackingDB
		}
		return db
	}
	f := afterFault{c: c, db: db, streams: databases, acc: acc, load: load, rc: rc, path: "/split", within: 90 * time.Second}.nothingLost(verdict)

	// No parcel was checked twice at once, which would publish one version
	// twice.
	var parcels, twice int
	if err := trackingDB.QueryRow(`SELECT count(DISTINCT payload->'tracking_parcel'->>'id') FROM "watermill_tracking"`).Scan(&parcels); err != nil {
		t.Fatal(err)
	}
	if err := trackingDB.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM "watermill_tracking" WHERE metadata->>'name' <> 'tracking_parcel.status_changed'
		GROUP BY payload->'tracking_parcel'->>'id', payload->>'version' HAVING count(*) > 1) twice`).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if parcels == 0 {
		verdict.Error("no tracking parcel was made from the booked shipments")
	}
	if twice > 0 {
		verdict.Errorf("%d tracking parcel versions published twice", twice)
	}
	t.Logf("split deployment, each module process killed with -9 in turn: %d writes (%s); %s; %s", len(answers), outcomes(answers), strings.Join(served, ", "), f)
	t.Logf("tracking: %d parcels, no version published twice; checks before the kills: %s", parcels, strings.Join(checks, ", "))
}

// moduleDatabase makes a database of its own in the cluster of the
// platform's (db at dsn) and returns its URL and a connection.
func moduleDatabase(t *testing.T, db *sql.DB, dsn, name string) (string, *sql.DB) {
	t.Helper()
	if _, err := db.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatal(err)
	}
	// The cluster's DSN is key=value pairs (localcluster).
	var pairs []string
	for _, kv := range strings.Fields(dsn) {
		if !strings.HasPrefix(kv, "dbname=") {
			pairs = append(pairs, kv)
		}
	}
	ownDSN := strings.Join(append(pairs, "dbname="+name), " ")
	own, err := sql.Open("postgres", ownDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { own.Close() })
	return ownDSN, own
}

// trackCalls is how many tracking checks the process made, from /metrics.
func trackCalls(t *testing.T, in *instance) int {
	t.Helper()
	res, err := http.Get(in.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	total := 0
	s := bufio.NewScanner(res.Body)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "shipd_carrier_calls_total{") && strings.Contains(line, `operation="track"`) {
			if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
				total += int(v)
			}
		}
	}
	return total
}

// explainBrokerLag logs, for a failed check, where each JetStream consumer
// stands and what each database stored as its groups' positions.
func explainBrokerLag(t *testing.T, natsURL string, dbs map[string]*sql.DB) {
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Logf("broker: %v", err)
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	streams := js.StreamNames(ctx)
	for stream := range streams.Name() {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			continue
		}
		for info := range s.ListConsumers(ctx).Info() {
			t.Logf("broker %s/%s: pending %d, unacknowledged %d, redelivered %d, ack floor %d, delivered %d, waiting pulls %d",
				stream, info.Name, info.NumPending, info.NumAckPending, info.NumRedelivered, info.AckFloor.Stream, info.Delivered.Stream, info.NumWaiting)
		}
	}
	for name, db := range dbs {
		t.Logf("positions in %s: %v", name, textRows(db, `SELECT consumer_group || ' ' || stream || ' ' || stream_sequence FROM platform.broker_offsets ORDER BY 1`))
	}
}
