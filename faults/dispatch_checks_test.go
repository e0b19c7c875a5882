//go:build faults

package faults

import (
	"bytes"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"shipd/adapters/carriers/sandbox"
	"shipd/platform/failpoint"
)

// leftovers are what a killed dispatch process left half-way: pickups
// being ordered and manifests being created, by id.
type leftovers struct {
	pickups, manifests []string
}

func (l leftovers) String() string {
	return fmt.Sprintf("%d pickups being ordered, %d manifests being created", len(l.pickups), len(l.manifests))
}

// leftBehind reads them from the dispatch database.
func leftBehind(db *sql.DB, accountID string) leftovers {
	return leftovers{
		pickups:   textRows(db, `SELECT id FROM dispatch.pickups WHERE account_id = $1 AND status = 'ordering' ORDER BY id`, accountID),
		manifests: textRows(db, `SELECT id FROM dispatch.manifests WHERE account_id = $1 AND status = 'creating' ORDER BY id`, accountID),
	}
}

// everyShipmentKnown waits until every shipment of the account is created
// at the carrier and the dispatch process's copy knows each as created,
// and returns their ids.
func everyShipmentKnown(t testing.TB, shipmentsDB, dispatchDB *sql.DB, accountID string) []string {
	t.Helper()
	var created []string
	eventually(t, 60*time.Second, "every shipment created and known to the dispatch process as created", func() string {
		if n := countRows(shipmentsDB, `SELECT count(*) FROM shipments.shipments WHERE account_id = $1 AND status <> 'created'`, accountID); n != 0 {
			return fmt.Sprintf("%d shipments not created yet", n)
		}
		created = textRows(shipmentsDB, `SELECT id FROM shipments.shipments WHERE account_id = $1 ORDER BY id`, accountID)
		known := textRows(dispatchDB, `SELECT id FROM dispatch.shipments WHERE account_id = $1 AND status = 'created' AND NOT deleted ORDER BY id`, accountID)
		if !slices.Equal(created, known) {
			return fmt.Sprintf("%d created, the dispatch process knows %d as created", len(created), len(known))
		}
		return ""
	})
	return created
}

// dispatchAfterKills checks what the dispatch module holds after the
// kills, against the load's answers and the carrier's journal.
type dispatchAfterKills struct {
	t       testing.TB
	c       client // the dispatch process's API
	db      *sql.DB
	acc     account
	journal string
	left    map[string]leftovers // by the kill: a failpoint's name, or "kill -9"
}

// pickupFindings are the figures of the pickups' check.
type pickupFindings struct {
	stored, scheduled, unconfirmed int
	orders, twice                  int // at the carrier; keys ordered more than once
	lostUnordered, lostOrdered     int // unconfirmed: the carrier never had it, or holds it
}

func (f pickupFindings) String() string {
	return fmt.Sprintf("pickups: %d stored, %d scheduled, %d unconfirmed (%d the carrier never had, %d it holds); %d orders at the carrier, %d pickups ordered twice",
		f.stored, f.scheduled, f.unconfirmed, f.lostUnordered, f.lostOrdered, f.orders, f.twice)
}

// pickupsOrderedOnce: every pickup key ordered at the carrier at most
// once; every pickup scheduled under the number the carrier gave it, or
// unconfirmed, none left being ordered (nor cancelled: the load cancels
// none); no order the carrier holds whose pickup shipd forgot; every
// pickup answered 201 scheduled as answered. The failpoints' rounds left
// what they say: a pickup stored and never ordered, and one ordered whose
// answer was lost, both unconfirmed now.
func (x dispatchAfterKills) pickupsOrderedOnce(posts []dispatchPost) pickupFindings {
	t := x.t
	t.Helper()
	orders, err := sandbox.PickupOrdersIn(x.journal)
	if err != nil {
		t.Fatal(err)
	}
	type stored struct{ status, number string }
	pickups := map[string]stored{}
	rows, err := x.db.Query(`SELECT id, status, confirmation_number FROM dispatch.pickups WHERE account_id = $1`, x.acc.id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var p stored
		if err := rows.Scan(&id, &p.status, &p.number); err != nil {
			t.Fatal(err)
		}
		pickups[id] = p
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	var f pickupFindings
	var problems []string
	for key, numbers := range orders {
		f.orders += len(numbers)
		if len(numbers) > 1 {
			f.twice++
			problems = append(problems, fmt.Sprintf("%s ordered at the carrier %d times (%s)", key, len(numbers), strings.Join(numbers, ", ")))
		}
		if _, ok := pickups[key]; !ok {
			problems = append(problems, fmt.Sprintf("the carrier holds order %s of pickup %s, which shipd forgot", numbers[0], key))
		}
	}
	f.stored = len(pickups)
	for id, p := range pickups {
		switch p.status {
		case "scheduled":
			f.scheduled++
			if len(orders[id]) != 1 || orders[id][0] != p.number {
				problems = append(problems, fmt.Sprintf("%s scheduled under %q, the carrier's orders of it: %v", id, p.number, orders[id]))
			}
		case "unconfirmed":
			f.unconfirmed++
			if len(orders[id]) == 0 {
				f.lostUnordered++
			} else {
				f.lostOrdered++
			}
		default:
			problems = append(problems, fmt.Sprintf("%s is %s", id, p.status))
		}
	}
	for _, post := range posts {
		if post.ok() {
			if p := pickups[post.id]; p.status != "scheduled" || p.number != post.data()["confirmation_number"] {
				problems = append(problems, fmt.Sprintf("%s answered 201 %v, now %s %q", post.id, post.data()["confirmation_number"], p.status, p.number))
			}
		}
	}
	// What each failpoint left being ordered includes the pickup it
	// killed the process on: never ordered after the first, ordered once
	// after the second, and unconfirmed either way.
	for point, want := range map[string]func(id string) bool{
		failpoint.PickupOrderingStored:     func(id string) bool { return len(orders[id]) == 0 },
		failpoint.PickupAfterCarrierAnswer: func(id string) bool { return len(orders[id]) == 1 },
	} {
		if !slices.ContainsFunc(x.left[point].pickups, func(id string) bool { return pickups[id].status == "unconfirmed" && want(id) }) {
			problems = append(problems, fmt.Sprintf("the kill at %s left no unconfirmed pickup of its kind (being ordered then: %v)", point, x.left[point].pickups))
		}
	}
	if len(problems) > 0 {
		t.Errorf("pickups after the kills: %s", summarise(problems))
	}
	return f
}

// manifestFindings are the figures of the manifests' check.
type manifestFindings struct {
	created, forgotten int
	shipments, onOne   int // created, and of them on exactly one manifest
}

func (f manifestFindings) String() string {
	return fmt.Sprintf("manifests: %d created; %d left being created at the kills, forgotten; %d created shipments, %d of them on exactly one manifest",
		f.created, f.forgotten, f.shipments, f.onOne)
}

// manifestsWhole: no manifest left being created; each created one's
// document downloads as a PDF; none answered 201 is lost or changed; no
// shipment is on two manifests nor held by one that is gone; and every
// created shipment is on one (after each channel's last manifest, which
// takes those the forgotten manifests let go). The manifest failpoint's
// kill left one being created that was forgotten.
func (x dispatchAfterKills) manifestsWhole(posts []dispatchPost, created []string) manifestFindings {
	t := x.t
	t.Helper()
	manifests := map[string][]string{}
	var problems []string
	rows, err := x.db.Query(`SELECT id, status, shipment_ids FROM dispatch.manifests WHERE account_id = $1`, x.acc.id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		var ids pq.StringArray
		if err := rows.Scan(&id, &status, &ids); err != nil {
			t.Fatal(err)
		}
		if status != "created" {
			problems = append(problems, fmt.Sprintf("manifest %s is %s", id, status))
		}
		manifests[id] = ids
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var f manifestFindings
	f.created = len(manifests)
	on := map[string][]string{} // shipment: its manifests
	for id, ids := range manifests {
		for _, sh := range ids {
			on[sh] = append(on[sh], id)
		}
		a := x.c.call(http.MethodGet, "/v1/manifests/"+id+"/document", nil)
		if !a.ok() || a.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(a.body, []byte("%PDF-")) {
			problems = append(problems, fmt.Sprintf("manifest %s's document: %d %s, %d bytes", id, a.status, a.header.Get("Content-Type"), len(a.body)))
		}
	}
	for sh, ms := range on {
		if len(ms) > 1 {
			problems = append(problems, fmt.Sprintf("shipment %s is on %d manifests: %v", sh, len(ms), ms))
		}
	}
	for _, sh := range created {
		switch len(on[sh]) {
		case 0:
			problems = append(problems, "created shipment "+sh+" is on no manifest")
		case 1:
			f.onOne++
		}
	}
	f.shipments = len(created)
	for _, held := range textRows(x.db, `SELECT shipment_id || ' by ' || manifest_id FROM dispatch.manifest_shipments h
		WHERE NOT EXISTS (SELECT FROM dispatch.manifests m WHERE m.id = h.manifest_id AND m.status = 'created')`) {
		problems = append(problems, "shipment "+held+", a manifest that is gone or not created")
	}
	for _, post := range posts {
		if !post.ok() {
			continue
		}
		answered := []string{}
		listed, _ := post.data()["shipment_ids"].([]any)
		for _, id := range listed {
			s, _ := id.(string)
			answered = append(answered, s)
		}
		if ids, ok := manifests[post.id]; !ok || !slices.Equal(ids, answered) {
			problems = append(problems, fmt.Sprintf("manifest %s answered 201 with %d shipments, now stored: %v with %d", post.id, len(answered), ok, len(ids)))
		}
	}
	// One left being created is forgotten, unless its completion's commit
	// was on its way when the process died (then it is created, whole).
	forgotten := map[string]bool{}
	for _, l := range x.left {
		for _, id := range l.manifests {
			if _, ok := manifests[id]; !ok {
				forgotten[id] = true
			}
		}
	}
	f.forgotten = len(forgotten)
	if !slices.ContainsFunc(x.left[failpoint.ManifestCreatingStored].manifests, func(id string) bool { return forgotten[id] }) {
		problems = append(problems, fmt.Sprintf("the kill at %s left no manifest being created that was then forgotten (being created then: %v)",
			failpoint.ManifestCreatingStored, x.left[failpoint.ManifestCreatingStored].manifests))
	}
	if len(problems) > 0 {
		t.Errorf("manifests after the kills: %s", summarise(problems))
	}
	return f
}
