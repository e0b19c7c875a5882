package ports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd"
	"shipd/modules/shipments/contract"
	"shipd/platform/apptest"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/projection"
)

// awaitListed polls until the shipment is in the list, so that the next
// one is seen after it: the list's order is the order the read model first
// saw each shipment, and a rebuild follows creation order (ADR 0022).
func awaitListed(t *testing.T, env *apptest.Env, key, id string) {
	t.Helper()
	apptest.Eventually(t, 60*time.Second, id+" in the list", func() bool {
		return bytes.Contains(env.Do(apptest.Request{Method: http.MethodGet, Path: shipmentsPath + "?per_page=100", Key: key}).Body, []byte(id))
	})
}

func TestRebuiltShipmentListAnswersAsBeforeCorruption(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	a := activeChannel(t, env, key, "A", nil)
	b := activeChannel(t, env, key, "B", nil)
	untracked := func(ch, ref string) map[string]any {
		return with(shipmentBody(ch), "reference_number", ref, "enable_tracking", false)
	}
	refused := func(ch, ref string) map[string]any {
		body := untracked(ch, ref)
		body["destination_address"] = map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "99999", "country_code": "CZ"}
		return body
	}
	var ids []string
	for _, body := range []map[string]any{
		untracked(a, "SHOP-1"), untracked(b, "SHOP-2"), refused(a, "SHOP-3"), untracked(a, "SHOP-4"),
		refused(b, "SHOP-5"), with(shipmentBody(b), "reference_number", "SHOP-6"), untracked(a, "SHOP-7"),
	} {
		id := create(t, env, key, body)["id"].(string)
		awaitListed(t, env, key, id)
		awaitCarrier(t, env, key, id)
		ids = append(ids, id)
	}
	do := func(method, path string, body any, want int) {
		t.Helper()
		if res := env.Do(apptest.Request{Method: method, Path: path, Key: key, Body: body}); res.Status != want {
			t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
		}
	}
	do(http.MethodPatch, shipmentsPath+"/"+ids[1], map[string]any{"reference_number": "SHOP-2-EDITED"}, http.StatusOK)
	do(http.MethodPost, shipmentsPath+"/"+ids[3]+"/cancel", nil, http.StatusOK)
	do(http.MethodDelete, shipmentsPath+"/"+ids[4], nil, http.StatusNoContent)
	create(t, env, env.NewKey("globex"), shipmentBody(activeChannel(t, env, env.NewKey("globex"), "Theirs", nil)))

	paths := []string{shipmentsPath, shipmentsPath + "?per_page=2", shipmentsPath + "?per_page=2&page=2",
		shipmentsPath + "?per_page=2&page=3", shipmentsPath + "?per_page=1&page=5", shipmentsPath + "?status=created",
		shipmentsPath + "?status=pending", shipmentsPath + "?status=cancelled", shipmentsPath + "?shipping_channel_id=" + b,
		shipmentsPath + "?status=created&shipping_channel_id=" + a, shipmentsPath + "?search=SHOP-", shipmentsPath + "?search=SHOP-2",
		shipmentsPath + "?per_page=2&page=2&search=SHOP"}
	before := env.Settled(key, func(answers string) bool {
		return strings.Contains(answers, `"total":6`) && strings.Contains(answers, "SHOP-2-EDITED") && !strings.Contains(answers, ids[4]) &&
			strings.Contains(answers, `"status":"cancelled"`)
	}, paths...)
	for _, c := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM shipments.shipment_list WHERE id = $1 OR id = $2`, []any{ids[0], ids[4]}},
		{`UPDATE shipments.shipment_list SET status = 'delivered', record = '{"id":"garbage"}' WHERE id = $1`, []any{ids[5]}},
		{`UPDATE shipments.shipment_counts SET n = n + 3`, nil},
		{`UPDATE shipments.shipment_list_blocks SET n = n - 100`, nil},
		{`DELETE FROM shipments.shipment_list_seq`, nil},
	} {
		if _, err := env.ModuleDB("shipments").Exec(c.sql, c.args...); err != nil {
			t.Fatal(err)
		}
	}
	if env.CorruptedAnswers(key, paths...) == before {
		t.Fatal("corrupting the read model changed no answer")
	}

	if _, err := env.Projections("shipments").Rebuild(t.Context(), "shipments.shipment_list", nil); err != nil {
		t.Fatal(err)
	}
	if after := env.Answers(key, paths...); after != before {
		t.Errorf("after the rebuild the list answers differently than before the corruption:\n%s", apptest.DiffLines(before, after))
	}
	// The live projection goes on writing into the swapped tables.
	do(http.MethodPatch, shipmentsPath+"/"+ids[6], map[string]any{"reference_number": "SHOP-7-AFTER"}, http.StatusOK)
	apptest.Eventually(t, 60*time.Second, "an edit after the rebuild in the list", func() bool {
		return strings.Contains(env.Answers(key, shipmentsPath+"?search=SHOP-7-AFTER"), `"total":1`)
	})
}

// While a rebuild of a few thousand events runs, the list answers every
// request in full, and shipments created meanwhile are in it afterwards.
func TestShipmentListAnswersInFullWhileRebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds thousands of events")
	}
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	ch := activeChannel(t, env, key, "Sandbox", nil)
	template := create(t, env, key, with(shipmentBody(ch), "reference_number", "TEMPLATE", "enable_tracking", false))["id"].(string)
	awaitCarrier(t, env, key, template)
	const seeded = 2100 // and 700 updates: 2,800 events
	events := seedShipmentEvents(t, env, seeded)
	want := seeded + 1
	apptest.Eventually(t, 90*time.Second, "the live projection applies the seeded events", func() bool {
		return strings.Contains(env.Answers(key, shipmentsPath+"?per_page=1"), fmt.Sprintf(`"total":%d`, want))
	})

	stop := make(chan struct{})
	var wg sync.WaitGroup
	answers := &answerLog{} // one reader, asking again as soon as answered
	wg.Go(func() { answers.readUntil(stop, env.URL(), key, seeded) })
	var (
		mu      sync.Mutex
		written []string // references of shipments created during the rebuild
	)
	write := func(ref string) error {
		if err := post(env.URL()+shipmentsPath, key, with(shipmentBody(ch), "reference_number", ref, "enable_tracking", false)); err != nil {
			return err
		}
		mu.Lock()
		written = append(written, ref)
		mu.Unlock()
		return nil
	}
	wg.Go(func() { // a steady trickle of writes, landing in every stage
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(150 * time.Millisecond):
				if err := write(fmt.Sprintf("TRICKLE-%05d", i)); err != nil {
					answers.fail(err)
				}
			}
		}
	})
	// And writes at known points: during the replay, and as the swap begins.
	var stagesSeen []string
	batches, swapWritten := 0, false
	progress := func(stage projection.Stage, done, total int64) {
		if len(stagesSeen) == 0 || stagesSeen[len(stagesSeen)-1] != string(stage) {
			stagesSeen = append(stagesSeen, string(stage))
		}
		if stage == projection.Replaying && done > 0 {
			if batches++; batches%3 == 1 {
				if err := write(fmt.Sprintf("REPLAY-%05d", batches)); err != nil {
					t.Error(err)
				}
			}
		}
		if stage == projection.Swapping && !swapWritten {
			swapWritten = true
			if err := write("SWAP"); err != nil {
				t.Error(err)
			}
		}
	}
	started := time.Now()
	report, err := env.Projections("shipments").WithOptions(projection.Options{BatchSize: 200}).Rebuild(t.Context(), "shipments.shipment_list", progress)
	took := time.Since(started)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rebuilt %d events (%d caught up, %d seeded) in %s, live writes waited %s; stages %v; %d list answers meanwhile, %d shipments created",
		report.Events, report.CaughtUp, events, took.Round(time.Millisecond), report.Locked.Round(time.Millisecond), stagesSeen, answers.count(), len(written))
	if failures := answers.failures(); len(failures) > 0 {
		t.Fatalf("%d of %d list answers during the rebuild were wrong, first: %s", len(failures), answers.count(), failures[0])
	}
	if answers.count() < 20 {
		t.Errorf("only %d list answers during the rebuild", answers.count())
	}
	if report.CaughtUp == 0 || report.Events < int64(events) {
		t.Errorf("report %+v: want the %d seeded events replayed and the writes during the rebuild caught up", report, events)
	}
	want += len(written)
	// Polled by hand rather than with Eventually, so that a failure says
	// which shipments the list lacks. (It found a real defect: events lost
	// once the cluster's transaction ids grew a digit, ADR 0022.)
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(env.Answers(key, shipmentsPath+"?per_page=1"), fmt.Sprintf(`"total":%d`, want)) {
		if time.Now().After(deadline) {
			var missing []string
			for _, ref := range written {
				if body := env.Answers(key, shipmentsPath+"?search="+ref); !strings.Contains(body, `"reference_number":"`+ref+`"`) {
					missing = append(missing, ref)
				}
			}
			var rows, counted int
			_ = env.ModuleDB("shipments").Get(&rows, `SELECT count(*) FROM shipments.shipment_list WHERE NOT deleted`)
			_ = env.ModuleDB("shipments").Get(&counted, `SELECT coalesce(sum(n),0) FROM shipments.shipment_counts`)
			var stored int
			_ = env.ModuleDB("shipments").Get(&stored, `SELECT count(*) FROM shipments.shipments`)
			var errorLines []string
			for _, line := range strings.Split(env.Logs.String(), "\n") {
				if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
					errorLines = append(errorLines, line)
				}
			}
			if len(errorLines) > 20 {
				errorLines = append(errorLines[:10], errorLines[len(errorLines)-10:]...)
			}
			// Event delivery waits below the oldest open transaction of the
			// whole cluster: name the oldest ones (other tests' included).
			var open []string
			_ = env.ModuleDB("shipments").Select(&open, `SELECT format('%s %s pid %s open %s: %s', datname, state, pid, now() - xact_start, left(query, 120))
				FROM pg_stat_activity WHERE backend_xid IS NOT NULL OR backend_xmin IS NOT NULL ORDER BY xact_start LIMIT 5`)
			t.Fatalf("not within 60 s: all %d shipments in the list; list rows %d, counted %d, stored %d; created during the rebuild and not listed: %v\nwarnings and errors logged (first and last 10):\n%s\noldest open transactions:\n%s",
				want, rows, counted, stored, missing, strings.Join(errorLines, "\n"), strings.Join(open, "\n"))
		}
		time.Sleep(100 * time.Millisecond) // between polls of the list
	}
	for _, ref := range written {
		if body := env.Answers(key, shipmentsPath+"?search="+ref); !strings.Contains(body, `"reference_number":"`+ref+`"`) {
			t.Errorf("%s, created during the rebuild, is not in the list: %s", ref, body)
		}
	}
}

// seedShipmentEvents publishes n copies of the template shipment's
// shipment.requested (the live projection lists them like real ones) and an
// update of every third, and returns how many events it published.
func seedShipmentEvents(t *testing.T, env *apptest.Env, n int) int {
	t.Helper()
	var payload []byte
	if err := env.ModuleDB("shipments").Get(&payload, `SELECT payload FROM (SELECT * FROM "watermill_shipments" WHERE metadata->>'name' = 'shipment.requested') e LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	var template contract.ShipmentRequested
	if err := json.Unmarshal(payload, &template); err != nil {
		t.Fatal(err)
	}
	outbox := messaging.NewOutbox(messaging.WatermillLogger(nil))
	ctx := context.Background()
	var batch []messaging.Event
	published := 0
	flush := func() {
		if err := postgres.InTx(ctx, env.ModuleDB("shipments"), func(tx *sqlx.Tx) error { return outbox.Publish(ctx, tx, batch...) }); err != nil {
			t.Fatal(err)
		}
		published += len(batch)
		batch = nil
	}
	for i := range n {
		e := template
		e.Shipment.ID = fmt.Sprintf("sh_SEED%022d", i)
		e.Shipment.ReferenceNumber = fmt.Sprintf("SEED-%05d", i)
		batch = append(batch, contract.ShipmentRequested{ShipmentEvent: e.ShipmentEvent})
		if i%3 == 0 {
			u := e.ShipmentEvent
			u.Version++
			u.Shipment.ReferenceNumber += "-EDITED"
			batch = append(batch, contract.ShipmentUpdated{ShipmentEvent: u})
		}
		if len(batch) >= 500 {
			flush()
		}
	}
	flush()
	return published
}

// answerLog keeps what the reader of the list saw during a rebuild.
type answerLog struct {
	mu   sync.Mutex
	n    int
	errs []string
}

// readUntil reads pages of the list until stop: each must answer 200 with
// at least the seeded shipments in its total and a full page.
func (l *answerLog) readUntil(stop <-chan struct{}, base, key string, seeded int) {
	last := fmt.Sprintf("&page=%d", seeded/100) // the last full page of the seeded shipments
	pages := []struct {
		q     string
		total int // at least
	}{
		{"?per_page=100", seeded}, {"?per_page=100" + last, seeded}, {"?status=pending&per_page=100" + last, seeded},
		{"?search=SEED-01&per_page=100&page=3", 1000}, // SEED-01000 to SEED-01999
	}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		q, atLeast := pages[i%len(pages)].q, pages[i%len(pages)].total
		var body struct {
			Data []json.RawMessage `json:"data"`
			Meta struct {
				Total int `json:"total"`
			} `json:"meta"`
		}
		status, raw, err := get(base+shipmentsPath+q, key)
		if err == nil && status == http.StatusOK {
			err = json.Unmarshal(raw, &body)
		}
		l.mu.Lock()
		l.n++
		switch {
		case err != nil:
			l.errs = append(l.errs, fmt.Sprintf("%s: %v", q, err))
		case status != http.StatusOK:
			l.errs = append(l.errs, fmt.Sprintf("%s: status %d %s", q, status, raw))
		case body.Meta.Total < atLeast || len(body.Data) != 100:
			l.errs = append(l.errs, fmt.Sprintf("%s: total %d with %d items, want at least %d with 100", q, body.Meta.Total, len(body.Data), atLeast))
		}
		l.mu.Unlock()
	}
}

func (l *answerLog) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err.Error())
}

func (l *answerLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

func (l *answerLog) failures() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs)
}

// get and post talk to the API from goroutines, where t.Fatal may not run.
func get(url, key string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, raw, err
}

func post(url, key string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("POST %s: %d %s", url, res.StatusCode, b)
	}
	return nil
}
