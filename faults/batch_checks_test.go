//go:build faults

package faults

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"shipd/adapters/carriers/sandbox"
)

// trackedShipmentBody is shipmentBody with tracking on: booked, it has its
// parcel tracked, and follows that parcel's news.
func trackedShipmentBody(channelID, ref string) map[string]any {
	b := shipmentBody(channelID, ref)
	b["enable_tracking"] = true
	return b
}

// midBatch is what the kill mid-batch scenario checks once its load stopped.
type midBatch struct {
	db           *sql.DB
	in           *instance // the clean instance that finished the work
	rc           *receiver
	acc          account
	subscription string // to hookEvents, at path
	path         string
	journal      string // the sandbox's bookings
	load         *writeLoad
}

// drained waits until nothing is left to do: every booking made, every
// tracking parcel checked once (the next check is hours away), every
// consumer group at the end of its stream, no delivery waiting, and every
// event the subscription takes received. It returns how long that took.
func (m midBatch) drained(t testing.TB, within time.Duration) time.Duration {
	t.Helper()
	return eventually(t, within, "everything drained", func() string {
		var booking, unchecked, pending int
		if err := m.db.QueryRow(`SELECT count(*) FILTER (WHERE booking_due) FROM shipments.shipments WHERE account_id = $1`, m.acc.id).Scan(&booking); err != nil {
			return err.Error()
		}
		if err := m.db.QueryRow(`SELECT count(*) FILTER (WHERE state->>'last_checked_at' IS NULL) FROM tracking.parcels WHERE account_id = $1`, m.acc.id).Scan(&unchecked); err != nil {
			return err.Error()
		}
		if err := m.db.QueryRow(`SELECT count(*) FROM webhooks.deliveries WHERE account_id = $1 AND outcome = 'pending'`, m.acc.id).Scan(&pending); err != nil {
			return err.Error()
		}
		var problems []string
		if booking+unchecked+pending > 0 {
			problems = append(problems, fmt.Sprintf("%d bookings due, %d tracking parcels never checked, %d deliveries pending", booking, unchecked, pending))
		}
		lag, problem := metricValues(m.in, "shipd_event_handler_lag_messages")
		if problem != "" {
			return problem
		}
		for group, n := range lag {
			if n > 0 {
				problems = append(problems, fmt.Sprintf("%s %v behind", group, n))
			}
		}
		got := map[string]bool{}
		for _, h := range m.rc.received(m.path) {
			got[h.eventID] = true
		}
		for _, e := range published(t, oneDatabase(m.db), m.acc.id, hookEvents) {
			if !got[e.id] {
				problems = append(problems, fmt.Sprintf("%s %s of %s not received", e.eventType, e.id, e.resourceID))
			}
		}
		slices.Sort(problems)
		return summarise(problems)
	})
}

// batchFindings are the figures appliedOnce measured.
type batchFindings struct {
	acked, shipments, parcels, news, events, received, repeats int
}

func (f batchFindings) String() string {
	return fmt.Sprintf("%d acknowledged shipments, %d stored (each booked once, with one tracking parcel each: %d), %d tracking news applied once each; "+
		"%d events taken by the subscription, one delivery each, %d attempts received (%d repeats, none after an attempt recorded a success)",
		f.acked, f.shipments, f.parcels, f.news, f.events, f.received, f.repeats)
}

// storedShipment is what a shipment row says of its booking and tracking.
type storedShipment struct {
	id, ref, status string
	version         int
	numbers         []string // its parcels' tracking numbers
	parcelIDs       []string // the tracking parcels it knows
	tracked         map[string]int
}

// trackingParcel is a row of tracking.parcels.
type trackingParcel struct {
	id, shipmentID, number string
	version                int
}

// appliedOnce checks, on the drained service, what each batch-writing group
// made (ADR 0048): nothing missing, nothing twice.
func (m midBatch) appliedOnce(t testing.TB) batchFindings {
	t.Helper()
	var f batchFindings
	shipments := m.shipments(t)
	parcels := m.parcels(t)
	events := published(t, oneDatabase(m.db), m.acc.id, []string{"shipment.created", "shipment.updated", "tracking_parcel.created", "tracking_parcel.updated"})
	f.shipments, f.parcels = len(shipments), len(parcels)

	// Every acknowledged shipment is stored, none the load did not send,
	// one per reference, each booked once: at the carrier (its journal)
	// and in its events.
	acked := m.load.acknowledged()
	f.acked = len(acked)
	sent := m.load.sentRefs()
	byRef := map[string]int{}
	var problems []string
	for id, p := range acked {
		if s, ok := shipments[id]; !ok || s.ref != p.ref {
			problems = append(problems, fmt.Sprintf("acknowledged %s (%s) not stored", id, p.ref))
		}
	}
	bookings, err := sandbox.Bookings(m.journal)
	if err != nil {
		t.Fatal(err)
	}
	created := map[string][]int{} // shipment → versions of its shipment.created
	for _, e := range events {
		if e.eventType == "shipment.created" {
			created[e.resourceID] = append(created[e.resourceID], e.version)
		}
	}
	for id, s := range shipments {
		byRef[s.ref]++
		switch {
		case !sent[s.ref]:
			problems = append(problems, fmt.Sprintf("%s has reference %q, which the load never sent", id, s.ref))
		case s.status != "created":
			problems = append(problems, fmt.Sprintf("%s is %s", id, s.status))
		case bookings[id] != 1 || len(created[id]) != 1:
			problems = append(problems, fmt.Sprintf("%s booked %d times at the carrier, %d shipment.created published", id, bookings[id], len(created[id])))
		}
	}
	for ref, n := range byRef {
		if n > 1 {
			problems = append(problems, fmt.Sprintf("reference %s stored %d times", ref, n))
		}
	}
	for key := range bookings {
		if _, ok := shipments[key]; !ok {
			problems = append(problems, key+" booked at the carrier, but no such shipment")
		}
	}
	if len(problems) > 0 {
		t.Errorf("shipments not booked once each: %s", summarise(problems))
	}

	// tracking.track_shipment_parcels: one tracking parcel per parcel, made
	// once (one tracking_parcel.created).
	problems = problems[:0]
	parcelOf := map[string]trackingParcel{} // by shipment
	for _, p := range parcels {
		if prior, twice := parcelOf[p.shipmentID]; twice {
			problems = append(problems, fmt.Sprintf("shipment %s has tracking parcels %s and %s", p.shipmentID, prior.id, p.id))
		}
		parcelOf[p.shipmentID] = p
		if _, ok := shipments[p.shipmentID]; !ok {
			problems = append(problems, fmt.Sprintf("tracking parcel %s of no shipment of the account (%q)", p.id, p.shipmentID))
		}
	}
	for id, s := range shipments {
		if p, ok := parcelOf[id]; !ok || len(s.numbers) != 1 || p.number != s.numbers[0] {
			problems = append(problems, fmt.Sprintf("shipment %s with parcel numbers %v has tracking parcel %+v", id, s.numbers, p))
		}
	}
	news := map[string]map[int]int{} // tracking parcel → its published versions, each counted
	for _, e := range events {
		if strings.HasPrefix(e.eventType, "tracking_parcel.") {
			if news[e.resourceID] == nil {
				news[e.resourceID] = map[int]int{}
			}
			news[e.resourceID][e.version]++
			if e.eventType == "tracking_parcel.created" && e.version != 1 {
				problems = append(problems, fmt.Sprintf("tracking parcel %s created at version %d", e.resourceID, e.version))
			}
		}
	}
	for _, p := range parcels {
		for v := 1; v <= p.version; v++ {
			if n := news[p.id][v]; n != 1 {
				problems = append(problems, fmt.Sprintf("tracking parcel %s: version %d of %d published %d times", p.id, v, p.version, n))
			}
		}
		if len(news[p.id]) != p.version {
			problems = append(problems, fmt.Sprintf("tracking parcel %s at version %d has versions %v published", p.id, p.version, news[p.id]))
		}
	}
	if len(problems) > 0 {
		t.Errorf("tracking parcels not made once per parcel: %s", summarise(problems))
	}

	// shipments.tracking_progress: each news of its parcel moved the
	// shipment once. Nothing else changes a shipment once it is booked, so
	// its version is its booking's plus its parcel's versions, each told by
	// one shipment.updated, and it knows the parcel's last version.
	problems = problems[:0]
	updated := map[string]map[int]int{} // shipment → versions of its shipment.updated, each counted
	for _, e := range events {
		if e.eventType == "shipment.updated" {
			if updated[e.resourceID] == nil {
				updated[e.resourceID] = map[int]int{}
			}
			updated[e.resourceID][e.version]++
		}
	}
	for id, s := range shipments {
		p, ok := parcelOf[id]
		if !ok || len(created[id]) != 1 {
			continue // said above
		}
		booked := created[id][0]
		f.news += p.version
		var after []int
		for v, n := range updated[id] {
			if v > booked {
				for range n {
					after = append(after, v)
				}
			}
		}
		slices.Sort(after)
		want := make([]int, p.version)
		for i := range want {
			want[i] = booked + 1 + i
		}
		if s.version != booked+p.version || !slices.Equal(after, want) || s.tracked[p.id] != p.version || !slices.Equal(s.parcelIDs, []string{p.id}) {
			problems = append(problems, fmt.Sprintf("shipment %s booked at version %d, now at %d, updated at versions %v, knows parcels %v at %v; its parcel %s is at version %d",
				id, booked, s.version, after, s.parcelIDs, s.tracked, p.id, p.version))
		}
	}
	if len(problems) > 0 {
		t.Errorf("tracking progress not applied once: %s", summarise(problems))
	}

	f.events, f.received, f.repeats = m.deliveredOnce(t)

	var dead int
	if err := m.db.QueryRow(`SELECT count(*) FROM platform.dead_letters`).Scan(&dead); err != nil {
		t.Fatal(err)
	}
	if dead > 0 {
		t.Errorf("%d dead letters: %v", dead, textRows(m.db, `SELECT consumer_group || ' ' || name || ': ' || error FROM platform.dead_letters`))
	}
	return f
}

// deliveredOnce checks webhooks.fan_out.*: each event the subscription
// takes has one delivery (its row, or once it succeeded and was deleted,
// its attempts' logs), and reached the receiver; an event reached it again
// only after an attempt the kill left unrecorded (no log of it), since
// the receiver answers each at once (at least once, as in kill_test.go).
// It returns the events, the attempts received and the repeats.
func (m midBatch) deliveredOnce(t testing.TB) (events, received, repeats int) {
	t.Helper()
	deliveries := map[string][]int64{} // event → its deliveries
	rows, err := m.db.Query(`SELECT event_id, array_agg(DISTINCT id ORDER BY id)::text FROM (
			SELECT event_id, id FROM webhooks.deliveries WHERE subscription_id = $1
			UNION ALL SELECT event_id, delivery_id FROM webhooks.delivery_log WHERE subscription_id = $1) d
		GROUP BY event_id`, m.subscription)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var event, ids string
		if err := rows.Scan(&event, &ids); err != nil {
			t.Fatal(err)
		}
		for id := range strings.SplitSeq(strings.Trim(ids, "{}"), ",") {
			n, _ := strconv.ParseInt(id, 10, 64)
			deliveries[event] = append(deliveries[event], n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	logged := map[string]string{} // attempt → its logged status
	for _, l := range textRows(m.db, `SELECT id || ' ' || status FROM webhooks.delivery_log WHERE subscription_id = $1`, m.subscription) {
		id, status, _ := strings.Cut(l, " ")
		logged[id] = status
	}
	var left int
	if err := m.db.QueryRow(`SELECT count(*) FROM webhooks.deliveries WHERE subscription_id = $1`, m.subscription).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left > 0 {
		t.Errorf("%d deliveries did not succeed: %v", left, textRows(m.db, `SELECT event_id || ' ' || outcome FROM webhooks.deliveries WHERE subscription_id = $1`, m.subscription))
	}

	taken := published(t, oneDatabase(m.db), m.acc.id, hookEvents)
	hits := map[string][]hit{}
	for _, h := range m.rc.received(m.path) {
		hits[h.eventID] = append(hits[h.eventID], h)
	}
	var problems []string
	for _, e := range taken {
		if d := deliveries[e.id]; len(d) != 1 {
			problems = append(problems, fmt.Sprintf("%s %s of %s: deliveries %v", e.eventType, e.id, e.resourceID, d))
		}
		delete(deliveries, e.id)
		seen := hits[e.id]
		if len(seen) == 0 {
			problems = append(problems, fmt.Sprintf("%s %s of %s never received", e.eventType, e.id, e.resourceID))
		}
		for i, h := range seen[:max(len(seen)-1, 0)] {
			if logged[h.deliveryID] == "success" {
				problems = append(problems, fmt.Sprintf("%s %s received again (attempt %s) after attempt %s was recorded a success", e.eventType, e.id, seen[i+1].deliveryID, h.deliveryID))
			}
		}
		repeats += max(len(seen)-1, 0)
		received += len(seen)
	}
	for event, d := range deliveries {
		problems = append(problems, fmt.Sprintf("deliveries %v of %s, an event never published", d, event))
	}
	attempts := map[string]bool{}
	for _, h := range m.rc.received("") {
		if attempts[h.deliveryID] {
			problems = append(problems, fmt.Sprintf("attempt %s (X-Service-Delivery) received twice", h.deliveryID))
		}
		attempts[h.deliveryID] = true
	}
	// shipment.created of each booked shipment, which does not trust the
	// outbox.
	created := map[any]bool{}
	for _, h := range m.rc.received(m.path) {
		if h.eventType == "shipment.created" {
			created[h.resource["id"]] = true
		}
	}
	for _, p := range m.load.acknowledged() {
		if !created[p.id] {
			problems = append(problems, "no shipment.created received for "+p.id)
		}
	}
	if len(problems) > 0 {
		t.Errorf("webhooks not delivered once each: %s", summarise(problems))
	}
	return len(taken), received, repeats
}

// shipments reads the account's shipments.
func (m midBatch) shipments(t testing.TB) map[string]storedShipment {
	t.Helper()
	rows, err := m.db.Query(`SELECT id, status, version, state FROM shipments.shipments WHERE account_id = $1`, m.acc.id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]storedShipment{}
	for rows.Next() {
		var s storedShipment
		var state []byte
		if err := rows.Scan(&s.id, &s.status, &s.version, &state); err != nil {
			t.Fatal(err)
		}
		var st struct {
			Ref     string `json:"reference_number"`
			Parcels []struct {
				TrackingNumber *string `json:"tracking_number"`
			} `json:"parcels"`
			TrackingParcelIDs []string `json:"tracking_parcel_ids"`
			Tracked           map[string]struct {
				Version int `json:"version"`
			} `json:"tracked"`
		}
		if err := json.Unmarshal(state, &st); err != nil {
			t.Fatal(err)
		}
		s.ref, s.parcelIDs, s.tracked = st.Ref, st.TrackingParcelIDs, map[string]int{}
		for _, p := range st.Parcels {
			if p.TrackingNumber != nil {
				s.numbers = append(s.numbers, *p.TrackingNumber)
			}
		}
		for id, tp := range st.Tracked {
			s.tracked[id] = tp.Version
		}
		out[s.id] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parcels reads the account's tracking parcels.
func (m midBatch) parcels(t testing.TB) []trackingParcel {
	t.Helper()
	rows, err := m.db.Query(`SELECT id, coalesce(shipment_id, ''), tracking_number, version FROM tracking.parcels WHERE account_id = $1`, m.acc.id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []trackingParcel
	for rows.Next() {
		var p trackingParcel
		if err := rows.Scan(&p.id, &p.shipmentID, &p.number, &p.version); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// metricValues reads one metric of the instance's /metrics, by its labels.
// An instance that cannot answer is a problem, not a failure: it is polled.
func metricValues(in *instance, name string) (map[string]float64, string) {
	res, err := http.Get(in.url + "/metrics")
	if err != nil {
		return nil, err.Error()
	}
	defer res.Body.Close()
	out := map[string]float64{}
	s := bufio.NewScanner(res.Body)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Sprintf("%s: %v", line, err)
		}
		out[line[len(name):i]] = v
	}
	if len(out) == 0 {
		return nil, "no " + name + " in /metrics"
	}
	return out, ""
}
