package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/migrations"
	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/app/query"
	"shipd/modules/shipments/contract"
	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/postgres/pgtest"
	"shipd/platform/projection"
)

// modelShipment is a shipment as its events leave it, worked out in Go.
type modelShipment struct {
	id, reference, channel, status string
	providerID                     *string
	deleted                        bool
	version                        int
	firstSeen                      int // the order the projection first saw it: the list's order
}

// listEvent is one stored event of a shipment.
type listEvent struct {
	message messaging.StoredMessage
	version int
	deleted bool
	state   modelShipment
}

// shipmentHistory writes the events of one shipment: requested, created
// with a provider id, a few status moves, sometimes a reference edit, and
// sometimes a delete.
func shipmentHistory(t *testing.T, rng *rand.Rand, account string, s modelShipment) []listEvent {
	t.Helper()
	var out []listEvent
	add := func(topic string, deleted bool) {
		s.version++
		at := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
		payload, err := json.Marshal(contract.ShipmentEvent{AccountID: account, Version: s.version, OccurredAt: at,
			Shipment: contract.ShipmentSnapshot{ID: s.id, ReferenceNumber: s.reference, ShippingChannelID: s.channel,
				ProviderShipmentID: s.providerID, Status: s.status, CreatedAt: at, UpdatedAt: at}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, listEvent{messaging.StoredMessage{Topic: contract.Stream, Name: topic, UUID: ids.New(ids.Event), Payload: payload}, s.version, deleted, s})
	}
	provider := s.providerID
	s.status, s.providerID = "pending", nil
	add(contract.EventRequested, false)
	if rng.IntN(10) == 0 {
		s.status = "cancelled" // refused by the carrier
		add(contract.EventUpdated, false)
	} else {
		s.status, s.providerID = "created", provider
		add(contract.EventCreated, false)
		for _, next := range []string{"shipped", "delivered", "returned"}[:rng.IntN(4)] {
			if next == "returned" && rng.IntN(2) == 0 {
				break
			}
			s.status = next
			add(contract.EventUpdated, false)
		}
	}
	if rng.IntN(6) == 0 {
		s.reference += "-EDITED"
		add(contract.EventUpdated, false)
	}
	if rng.IntN(7) == 0 {
		add(contract.EventDeleted, true)
	}
	return out
}

// The reader answers every list shape (no filter, status, channel, both,
// searches with and without filters) with exactly the page and total that
// the events imply, worked out in Go: deleted shipments are in neither, a
// search counts a shipment found both by reference prefix and provider id
// once, and LIKE's wildcards in a search are literal. The events arrive
// interleaved, in batches, some late (older than the row) and some twice,
// as the bus and a rebuild deliver them. Blocks of 8 seqs, so the pages
// cross dozens of blocks, and searches counted directly up to 6 matches, so
// the searches take each way of counting: few matches ("A_", "PS000123"),
// few non-matches ("REF-"), many of both ("REF-1", "REF-01").
func TestEveryListShapeAnswersWhatTheEventsImply(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	list, reader := adapters.NewShipmentListForTest(db, 8, 6)
	def := list.Definition()
	rng := rand.New(rand.NewPCG(18, 15))
	account, neighbour := ids.New(ids.Account), ids.New(ids.Account)
	channels := []string{ids.New(ids.ShippingChannel), ids.New(ids.ShippingChannel), ids.New(ids.ShippingChannel)}
	str := func(s string) *string { return &s }

	// Per shipment its events in version order; a neighbouring account's
	// shipments in between, on the same channels.
	var histories [][]listEvent
	for i := range 300 {
		s := modelShipment{id: ids.New(ids.Shipment), reference: fmt.Sprintf("REF-%03d", i),
			channel: channels[[]int{0, 0, 0, 1, 1, 2}[rng.IntN(6)]], providerID: str(fmt.Sprintf("PS%06d", i))}
		switch i {
		case 5:
			s.reference = "A_1" // found by "A_"
		case 6:
			s.reference = "AB1" // not found by "A_": the underscore is literal
		case 7:
			s.reference = "A%2" // found by "A%" only
		case 8:
			// After every other reference that starts with "REF-" (bytewise),
			// and found by it.
			s.reference = "REF-\U0010FFFFx"
		case 10:
			s.reference = "REF-" // the search itself: a match
		case 12, 40:
			// One found by both its reference and its provider id, one by
			// its provider id alone.
			s.providerID = str("REF-01")
		}
		acc := account // the special ones above included
		if i%5 == 4 {
			acc = neighbour
		}
		h := shipmentHistory(t, rng, acc, s)
		// The special ones stay listed, with their provider id.
		for last := h[len(h)-1]; i >= 5 && i <= 8 || i == 10 || i == 12 || i == 40; last = h[len(h)-1] {
			if !last.deleted && last.state.providerID != nil {
				break
			}
			h = shipmentHistory(t, rng, acc, s)
		}
		histories = append(histories, h)
	}

	// The events in a random interleaving that keeps each shipment's order,
	// with a tenth of them again somewhere later: late (an older version
	// than the row) or redelivered.
	var stream []listEvent
	next := make([]int, len(histories))
	for open := len(histories); open > 0; {
		i := rng.IntN(len(histories))
		if next[i] == len(histories[i]) {
			continue
		}
		e := histories[i][next[i]]
		if next[i]++; next[i] == len(histories[i]) {
			open--
		}
		stream = append(stream, e)
		if rng.IntN(10) == 0 {
			at := len(stream) + rng.IntN(20)
			stream = append(stream, e)
			if at < len(stream) {
				stream[at], stream[len(stream)-1] = stream[len(stream)-1], stream[at]
			}
		}
	}

	model := map[string]*modelShipment{}
	for len(stream) > 0 {
		// Batches from one event to a subscriber's forty; a tenth of them
		// written twice, as a batch read again after a crash is.
		batch := stream[:min(len(stream), 1+rng.IntN(40))]
		stream = stream[len(batch):]
		tx, err := db.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		msgs := make([]messaging.StoredMessage, len(batch))
		for i, e := range batch {
			msgs[i] = e.message
		}
		times := 1
		if rng.IntN(10) == 0 {
			times = 2
		}
		for range times {
			if err := def.Apply(ctx, tx, projection.Live, msgs...); err != nil {
				t.Fatalf("applying a batch of %d: %v", len(msgs), err)
			}
		}
		for _, e := range batch {
			var envelope contract.ShipmentEvent
			_ = json.Unmarshal(e.message.Payload, &envelope)
			if envelope.AccountID != account {
				continue
			}
			m := model[e.state.id]
			if m == nil {
				m = &modelShipment{firstSeen: len(model)}
				model[e.state.id] = m
			}
			if e.version > m.version {
				first := m.firstSeen
				*m = e.state
				m.firstSeen, m.deleted = first, e.deleted
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}

	expected := func(q query.ListShipments) (ids []string, total int) {
		var found []*modelShipment
		for _, m := range model {
			if m.deleted || (q.Status != "" && m.status != q.Status) || (q.ChannelID != "" && m.channel != q.ChannelID) {
				continue
			}
			if q.Search != "" && !strings.HasPrefix(m.reference, q.Search) && (m.providerID == nil || *m.providerID != q.Search) {
				continue
			}
			found = append(found, m)
		}
		slices.SortFunc(found, func(a, b *modelShipment) int { return b.firstSeen - a.firstSeen })
		for _, m := range found[min(q.Offset, len(found)):min(q.Offset+q.Limit, len(found))] {
			ids = append(ids, m.id)
		}
		return ids, len(found)
	}
	check := func(q query.ListShipments) (total int) {
		t.Helper()
		page, err := reader.List(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		want, total := expected(q)
		var got []string
		for _, rec := range page.Records {
			var r struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal(rec, &r); err != nil {
				t.Fatal(err)
			}
			if m := model[r.ID]; m == nil || r.Status != m.status {
				t.Errorf("%+v: record %s", q, rec)
			}
			got = append(got, r.ID)
		}
		if page.Total != total || !slices.Equal(got, want) {
			t.Errorf("%+v: total %d, page %v; want total %d, page %v", q, page.Total, got, total, want)
		}
		return total
	}
	pages := func(q query.ListShipments) {
		t.Helper()
		q.AccountID, q.Limit = account, 7
		for q.Offset = 0; ; q.Offset += q.Limit {
			if total := check(q); q.Offset > total {
				break
			}
		}
		q.Limit = 1
		for _, q.Offset = range []int{0, 1, 8, 9, 63, 64} {
			check(q)
		}
	}

	var live, tombstones int
	for _, m := range model {
		if m.deleted {
			tombstones++
		} else {
			live++
		}
	}
	if live < 150 || tombstones < 15 || live/8 < 20 {
		t.Fatalf("the events left %d live shipments and %d tombstones, too few to cross many blocks", live, tombstones)
	}
	statuses := []string{"", "pending", "created", "shipped", "delivered", "cancelled", "returned"}
	for _, status := range statuses {
		for _, channel := range append([]string{"", ids.New(ids.ShippingChannel)}, channels...) {
			pages(query.ListShipments{Status: status, ChannelID: channel})
		}
	}
	for _, search := range []string{"REF-", "REF-01", "REF-1", "REF-2", "REF-01-", "A_", "A%", "PS000123", "PS", "nothing"} {
		pages(query.ListShipments{Search: search})
		pages(query.ListShipments{Search: search, Status: "created"})
		pages(query.ListShipments{Search: search, ChannelID: channels[0]})
		pages(query.ListShipments{Search: search, Status: "delivered", ChannelID: channels[1]})
	}
}

// Migration 00010 counts the blocks of the rows it finds as the projection
// keeps them, and so does the benchmark's recount; its down migration undoes
// it.
func TestBlocksCountedFromRowsAsTheProjectionKeepsThem(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	def := adapters.NewShipmentListProjection(db).Definition()
	rng := rand.New(rand.NewPCG(0, 10))
	accounts := []string{ids.New(ids.Account), ids.New(ids.Account)}
	channels := []string{ids.New(ids.ShippingChannel), ids.New(ids.ShippingChannel)}
	for i := range 60 {
		s := modelShipment{id: ids.New(ids.Shipment), reference: fmt.Sprintf("R%d", i), channel: channels[i%2]}
		for _, e := range shipmentHistory(t, rng, accounts[i%2], s) {
			if err := applyOne(ctx, db, def, e.message); err != nil {
				t.Fatal(err)
			}
		}
	}
	counts := func() string {
		var rows []string
		if err := db.Select(&rows, `SELECT concat_ws(' ', 'block', account_id, status, channel_id, block, n) FROM shipments.shipment_list_blocks WHERE n <> 0
			UNION ALL SELECT concat_ws(' ', 'total', account_id, status, channel_id, n) FROM shipments.shipment_counts WHERE n <> 0 ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		return strings.Join(rows, "\n")
	}
	kept := counts()
	if err := adapters.RecountShipmentList(ctx, db, accounts); err != nil {
		t.Fatal(err)
	}
	if recounted := counts(); recounted != kept {
		t.Errorf("the projection kept:\n%s\nthe recount:\n%s", kept, recounted)
	}
	// Seqs past the first block, as an account's history grows.
	if _, err := db.Exec(`UPDATE shipments.shipment_list SET seq = seq + 4096 * 3 WHERE seq % 3 = 0`); err != nil {
		t.Fatal(err)
	}
	if err := adapters.RecountShipmentList(ctx, db, accounts); err != nil {
		t.Fatal(err)
	}
	recounted := counts()
	var moved int
	_ = db.Get(&moved, `SELECT count(*) FROM shipments.shipment_list_blocks WHERE block = 3 AND n > 0`)
	if moved == 0 {
		t.Fatalf("no shipment in block 3:\n%s", recounted)
	}

	file, err := migrations.Files.ReadFile("00010_shipment_list_blocks.sql")
	if err != nil {
		t.Fatal(err)
	}
	up, down, ok := strings.Cut(string(file), "-- +goose Down")
	if !ok {
		t.Fatal("no down migration")
	}
	for _, sql := range []string{down, up} {
		if _, err := db.Exec(sql); err != nil {
			t.Fatal(err)
		}
	}
	var zero int
	_ = db.Get(&zero, `SELECT count(*) FROM shipments.shipment_list_blocks WHERE n = 0`)
	if migrated := counts(); migrated != recounted || zero != 0 {
		t.Errorf("migration 00010 counted (%d empty blocks):\n%s\nthe recount:\n%s", zero, migrated, recounted)
	}
}

func applyOne(ctx context.Context, db *sqlx.DB, p projection.Projection, m messaging.StoredMessage) error {
	tx, err := db.Beginx()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := p.Apply(ctx, tx, projection.Live, m); err != nil {
		return err
	}
	return tx.Commit()
}
