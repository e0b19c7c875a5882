//go:build faults

package faults

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"shipd/platform/config"
	"shipd/platform/messaging"
)

// The event types the load's writes publish that webhooks may carry:
// shipment.created and status_changed when the worker books a shipment,
// shipping_channel.updated for each description change. shipment.requested
// (the accepted POST) is internal to shipments and reaches only the list.
var loadEvents = []string{"shipment.created", "shipment.status_changed", "shipment.updated", "shipping_channel.updated"}

// publishedEvent is one row of the outbox: an event the service committed.
type publishedEvent struct {
	id, eventType, resourceID string
	version                   int
}

// published reads the account's events of the given types straight from
// the module streams (watermill_<module>), the ground truth of what was
// published, whichever instance published it and whatever happened after.
func published(t testing.TB, dbOf streamDatabases, accountID string, eventTypes []string) []publishedEvent {
	t.Helper()
	var out []publishedEvent
	for _, et := range eventTypes {
		resource, _, _ := strings.Cut(et, ".")
		stream := map[string]string{"shipment": "shipments", "shipping_channel": "channels", "tracking_parcel": "tracking"}[resource]
		rows, err := dbOf(stream).Query(fmt.Sprintf(`SELECT uuid, payload::text FROM "watermill_%s"
			WHERE metadata->>'name' = $2 AND payload->>'account_id' = $1`, stream), accountID, et)
		if err != nil {
			t.Fatalf("reading the outbox of %s: %v", et, err)
		}
		for rows.Next() {
			var id, payload string
			if err := rows.Scan(&id, &payload); err != nil {
				t.Fatal(err)
			}
			var body map[string]json.RawMessage
			_ = json.Unmarshal([]byte(payload), &body)
			var version int
			_ = json.Unmarshal(body["version"], &version)
			var res struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(body[resource], &res)
			out = append(out, publishedEvent{id: id, eventType: et, resourceID: res.ID, version: version})
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}

// streamDatabases says which database holds a module stream: one for all,
// or with module databases (ADR 0034) the module's own.
type streamDatabases func(stream string) *sql.DB

// oneDatabase is streamDatabases of a deployment on one database.
func oneDatabase(db *sql.DB) streamDatabases { return func(string) *sql.DB { return db } }

// afterFault names what a scenario checks once its fault is over.
type afterFault struct {
	c  client // an instance to read through
	db *sql.DB
	// streams holds the module streams when they are not all in db.
	streams streamDatabases
	acc     account
	load    *writeLoad
	rc      *receiver
	path    string        // the receiver path of the subscription to loadEvents
	within  time.Duration // for the read model and the webhooks to catch up
}

func (x afterFault) streamsDB() streamDatabases {
	if x.streams != nil {
		return x.streams
	}
	return oneDatabase(x.db)
}

// findings are the figures a check measured, for the scenario's log.
type findings struct {
	acked, stored, inDoubt, listed int
	listCaughtUp, hooksCaughtUp    time.Duration
	published, delivered, attempts int
	channels                       []string
}

func (f findings) String() string {
	return fmt.Sprintf("%d acknowledged shipments, %d stored (GET by id); list shows %d (%d of them from POSTs that got no 2xx: committed, answer lost), "+
		"all booked, equal to the write model, caught up %s after the checks began; %d events published for the account's writes, %d delivered "+
		"(%d attempts; at least once each), caught up in %s; channels %s",
		f.acked, f.stored, f.listed, f.inDoubt, f.listCaughtUp.Round(time.Millisecond), f.published, f.delivered, f.attempts,
		f.hooksCaughtUp.Round(time.Millisecond), strings.Join(f.channels, ", "))
}

// nothingLost checks every promise the write load was given.
func (x afterFault) nothingLost(t testing.TB) findings {
	t.Helper()
	var f findings
	acked := x.load.acknowledged()
	f.acked = len(acked)

	// 1. Stored: the write model answers for every acknowledged shipment.
	var lost []string
	for id, p := range acked {
		a := x.c.call(http.MethodGet, "/v1/shipments/"+id, nil)
		if !a.ok() || a.data()["reference_number"] != p.ref {
			lost = append(lost, fmt.Sprintf("%s (%s): %s", id, p.ref, a))
			continue
		}
		f.stored++
	}
	if len(lost) > 0 {
		t.Errorf("acknowledged shipments not stored: %s", summarise(lost))
	}

	// 2. Projected: the list shows every acknowledged shipment and nothing
	// the load did not send, each booked by the worker (shipment.created
	// reached the list), and its total agrees with its items.
	sent := x.load.sentRefs()
	var items map[string]map[string]any
	t.Cleanup(func() {
		if t.Failed() {
			x.explainLag(t)
		}
	})
	f.listCaughtUp = eventually(t, x.within, "the shipment list shows every acknowledged shipment, booked", func() string {
		list, total, problem := x.c.listAll("/v1/shipments")
		if problem != "" {
			return problem
		}
		items = map[string]map[string]any{}
		var problems []string
		for _, it := range list {
			id, _ := it["id"].(string)
			if _, twice := items[id]; twice {
				problems = append(problems, "listed twice: "+id)
			}
			items[id] = it
			if ref, _ := it["reference_number"].(string); !sent[ref] {
				problems = append(problems, fmt.Sprintf("%s has reference %q, which the load never sent", id, ref))
			}
			if it["status"] != "created" {
				problems = append(problems, fmt.Sprintf("%s is %v", id, it["status"]))
			}
		}
		for id, p := range acked {
			if items[id] == nil {
				problems = append(problems, fmt.Sprintf("acknowledged %s (%s) missing", id, p.ref))
			}
		}
		if total != len(list) {
			problems = append(problems, fmt.Sprintf("meta.total %d but %d items", total, len(list)))
		}
		return summarise(problems)
	})
	f.listed = len(items)
	f.inDoubt = len(items) - len(acked)

	// 3. The list equals the write model, item by item, and the status
	// counters behind meta.total agree.
	var differ []string
	for id, it := range items {
		full := x.c.call(http.MethodGet, "/v1/shipments/"+id, nil)
		d := full.data()
		if !full.ok() || d["status"] != it["status"] || d["updated_at"] != it["updated_at"] || d["reference_number"] != it["reference_number"] {
			differ = append(differ, fmt.Sprintf("list item %v, shipment %s", it, full))
		}
	}
	if len(differ) > 0 {
		t.Errorf("the list differs from the write model: %s", summarise(differ))
	}
	for status, want := range map[string]int{"created": len(items), "pending": 0} {
		_, total, problem := x.c.listAll("/v1/shipments?status=" + status)
		if problem != "" || total != want {
			t.Errorf("GET /v1/shipments?status=%s: total %d, want %d %s", status, total, want, problem)
		}
	}

	// 4. Channel updates: the channel holds the last acknowledged revision
	// (or the one after, sent when the fault struck), and the list shows
	// what the channel holds.
	for id, u := range x.load.channelRevisions() {
		ch := x.c.call(http.MethodGet, "/v1/shipping-channels/"+id, nil)
		var rev int
		if _, err := fmt.Sscanf(fmt.Sprint(ch.data()["description"]), "rev-%d", &rev); err != nil || rev < u.lastAcked || rev > u.lastSent {
			t.Errorf("channel %s: %s; last acknowledged revision %d, last sent %d", id, ch, u.lastAcked, u.lastSent)
		}
		want := ch.data()["updated_at"]
		eventually(t, x.within, "the channel list shows channel "+id+" as stored", func() string {
			list, _, problem := x.c.listAll("/v1/shipping-channels")
			if problem != "" {
				return problem
			}
			for _, it := range list {
				if it["id"] == id {
					if it["description"] != fmt.Sprintf("rev-%d", rev) || it["updated_at"] != want {
						return fmt.Sprintf("listed as %v at %v, stored as rev-%d at %v", it["description"], it["updated_at"], rev, want)
					}
					return ""
				}
			}
			return "not listed"
		})
		f.channels = append(f.channels, fmt.Sprintf("%s: %d updates acknowledged of %d sent, stored rev-%d", id, u.lastAcked, u.lastSent, rev))
	}
	sort.Strings(f.channels)

	// 5. Webhooks, at least once: every event in the outbox for these
	// writes reached the receiver, and so did each acknowledged write's own
	// event (shipment.created per shipment, shipping_channel.updated per
	// acknowledged revision), which does not trust the outbox.
	f.hooksCaughtUp = eventually(t, x.within, "every published event reached the webhook receiver", func() string {
		events := published(t, x.streamsDB(), x.acc.id, loadEvents)
		hits := x.rc.received(x.path)
		got := map[string]bool{}
		created := map[string]bool{}
		revisions := map[string]map[string]bool{}
		for _, h := range hits {
			got[h.eventID] = true
			id, _ := h.resource["id"].(string)
			switch h.eventType {
			case "shipment.created":
				created[id] = true
			case "shipping_channel.updated":
				if revisions[id] == nil {
					revisions[id] = map[string]bool{}
				}
				revisions[id][fmt.Sprint(h.resource["description"])] = true
			}
		}
		var problems []string
		for _, e := range events {
			if !got[e.id] {
				problems = append(problems, fmt.Sprintf("%s %s of %s v%d not delivered", e.eventType, e.id, e.resourceID, e.version))
			}
		}
		for id := range items {
			if !created[id] {
				problems = append(problems, "no shipment.created delivered for "+id)
			}
		}
		for id, u := range x.load.channelRevisions() {
			for _, a := range u.answers {
				if d := a.data(); a.ok() && !revisions[id][fmt.Sprint(d["description"])] {
					problems = append(problems, fmt.Sprintf("no shipping_channel.updated delivered for %s %v", id, d["description"]))
				}
			}
		}
		f.published, f.delivered, f.attempts = len(events), len(got), len(hits)
		return summarise(problems)
	})
	return f
}

// deliveredExactlyOnce waits until the account has no delivery left to
// attempt and every published event reached each path, then fails for any
// event delivered to a path more than once. It returns the attempts seen
// and how many of them were repeats.
func deliveredExactlyOnce(t testing.TB, db *sql.DB, rc *receiver, acc account, events []string, paths []string, within time.Duration) (attempts, repeats int) {
	t.Helper()
	eventually(t, within, "every published event delivered to every subscription, no delivery pending", func() string {
		var pending int
		if err := db.QueryRow(`SELECT count(*) FROM webhooks.deliveries WHERE account_id = $1 AND outcome = 'pending'`, acc.id).Scan(&pending); err != nil {
			return err.Error()
		}
		if pending > 0 {
			return fmt.Sprintf("%d deliveries pending", pending)
		}
		var problems []string
		for _, e := range published(t, oneDatabase(db), acc.id, events) {
			for _, p := range paths {
				if !hasEvent(rc.received(p), e.id) {
					problems = append(problems, fmt.Sprintf("%s %s not delivered to %s", e.eventType, e.id, p))
				}
			}
		}
		return summarise(problems)
	})
	var twice []string
	attemptIDs := map[string]bool{}
	for _, h := range rc.received("") {
		if attemptIDs[h.deliveryID] {
			twice = append(twice, fmt.Sprintf("attempt %s (X-Service-Delivery) received twice", h.deliveryID))
		}
		attemptIDs[h.deliveryID] = true
	}
	for _, p := range paths {
		seen := map[string][]string{}
		for _, h := range rc.received(p) {
			seen[h.eventID] = append(seen[h.eventID], h.deliveryID)
			attempts++
		}
		for id, deliveries := range seen {
			if len(deliveries) > 1 {
				repeats += len(deliveries) - 1
				twice = append(twice, fmt.Sprintf("event %s delivered %d times to %s (attempts %v)", id, len(deliveries), p, deliveries))
			}
		}
	}
	if len(twice) > 0 {
		t.Errorf("deliveries made more than once: %s", summarise(twice))
	}
	return attempts, repeats
}

func hasEvent(hits []hit, eventID string) bool {
	for _, h := range hits {
		if h.eventID == eventID {
			return true
		}
	}
	return false
}

// summarise turns problems into one message: how many, and the first few.
func summarise(problems []string) string {
	if len(problems) == 0 {
		return ""
	}
	if len(problems) > 5 {
		return fmt.Sprintf("%d problems, first: %s", len(problems), strings.Join(problems[:5], "; "))
	}
	return strings.Join(problems, "; ")
}

// explainLag logs, for a failed check, where the shipments are: booked or
// not in the write model, and how far each consumer group is behind.
func (x afterFault) explainLag(t testing.TB) {
	shipments := x.streamsDB()("shipments")
	booking := textRows(shipments, `SELECT s || ': ' || count(*) FROM (SELECT state->>'status' || ' due=' || booking_due::text || ' attempt=' || attempts::text || ' lease=' ||
		coalesce((lease_until > now())::text, 'none') AS s FROM shipments.shipments WHERE account_id = $1) x GROUP BY s`, x.acc.id)
	lag := textRows(shipments, `SELECT o.consumer_group || ' on shipments: ' || count(m."offset") FROM "watermill_offsets_shipments" o
		LEFT JOIN "watermill_shipments" m ON (m.transaction_id, m."offset") > (o.last_processed_transaction_id, o.offset_acked)
		AND (o.consumer_group !~ '#[0-9]+$' OR `+messaging.PartitionSQL(config.DefaultEventPartitions)+` = substring(o.consumer_group FROM '#([0-9]+)$')::int)
		GROUP BY o.consumer_group`)
	var dead int
	_ = x.db.QueryRow(`SELECT count(*) FROM platform.dead_letters`).Scan(&dead)
	t.Logf("where the shipments are: write model %v; waiting per group %v; dead letters %d", booking, lag, dead)
}

// textRows is a one-column text query's rows, or its error as the one row:
// for diagnostics, which must not fail the test themselves.
func textRows(db *sql.DB, query string, args ...any) []string {
	rows, err := db.Query(query, args...)
	if err != nil {
		return []string{err.Error()}
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		out = append(out, s)
	}
	return out
}
