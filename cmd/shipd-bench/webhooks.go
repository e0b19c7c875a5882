package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"shipd/modules/webhooks/adapters"
	"shipd/modules/webhooks/app/command"
	"shipd/modules/webhooks/domain"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/secrets"
	"shipd/platform/server"
	"shipd/platform/usecase/usecasetest"
)

// deliveryConcurrency is WEBHOOK_CONCURRENCY of the delivering instance and
// the number of goroutines of the bare-client baseline.
var deliveryConcurrency = 64

// benchReceiver is a local webhook receiver: it reads each body, answers
// 204 and notes when each event first arrived.
type benchReceiver struct {
	url      string
	hits     atomic.Int64
	mu       sync.Mutex
	arrivals map[string]time.Time // Webhook-Id → first arrival
	srv      *http.Server
}

func startReceiver() (*benchReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &benchReceiver{url: "http://" + ln.Addr().String() + "/hook", arrivals: map[string]time.Time{}}
	rc.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc.hits.Add(1)
		// Only the latency phase's events: the throughput phases send evt_base… and evt_seed… ids.
		if id := r.Header.Get("Webhook-Id"); strings.HasPrefix(id, "evt_") && !strings.HasPrefix(id, "evt_base") && !strings.HasPrefix(id, "evt_seed") {
			rc.mu.Lock()
			if _, seen := rc.arrivals[id]; !seen {
				rc.arrivals[id] = time.Now()
			}
			rc.mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

// benchBody is a delivery body of a realistic size: a shipment.updated event.
func benchBody(i int) []byte {
	contact := map[string]any{"company_name": "", "first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"}
	address := map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"}
	body, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("evt_bench%08d", i), "created_at": time.Now().UTC().Format(time.RFC3339), "type": "shipment.updated",
		"data": map[string]any{"shipment": map[string]any{"id": fmt.Sprintf("sh_bench%08d", i), "reference_number": fmt.Sprintf("ORDER-%d", i),
			"status": "created", "provider": "sandbox", "product_type": "STANDARD", "sender_contact": contact, "recipient_contact": contact,
			"origin_address": address, "destination_address": address, "parcels": []any{map[string]any{"weight_amount": 1.5, "tracking_number": "SB000000014CZ"}},
			"metadata": map[string]any{"order": i}}}})
	return body
}

// benchWebhooks measures deliveries per second of a delivering instance
// against a bare Go client sending the same signed bodies to the same
// receiver with the same concurrency, then the latency from an API write to
// the first attempt of its event.
func benchWebhooks(ctx context.Context, api *service, dsn string, n, samples int, report *strings.Builder) error {
	rc, err := startReceiver()
	if err != nil {
		return err
	}
	defer rc.srv.Close()
	const secret = "bench-webhook-secret"
	sub, err := api.call(http.MethodPost, "/v1/webhook-subscriptions", fmt.Sprintf(
		`{"name":"bench","url":%q,"events":["shipping_channel.updated"],"secret":%q,"active":false}`, rc.url, secret))
	if err != nil {
		return err
	}
	subID := sub["data"].(map[string]any)["id"].(string)

	bodies := make([][]byte, n)
	texts := make([]string, n)
	for i := range bodies {
		bodies[i] = benchBody(i)
		texts[i] = string(bodies[i])
	}
	// Baseline: the bare client sends the bodies, signed, round r.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: deliveryConcurrency}, Timeout: 10 * time.Second}
	bare := func(r int) (float64, error) {
		var next, failures atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range deliveryConcurrency {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					if err := bareSend(client, rc.url, secret, fmt.Sprintf("evt_base%d_%08d", r, i), bodies[i]); err != nil {
						failures.Add(1)
					}
				}
			})
		}
		wg.Wait()
		rate := float64(n) / time.Since(start).Seconds()
		if failures.Load() > 0 {
			return 0, fmt.Errorf("baseline: %d sends failed", failures.Load())
		}
		logf("bare client: %d signed POSTs, %.0f/s", n, rate)
		return rate, nil
	}

	if _, err := api.db.ExecContext(ctx, `UPDATE webhooks.subscriptions SET active = true WHERE id = $1`, subID); err != nil {
		return err
	}
	// seed makes the n deliveries due, from nothing: each its own
	// shipment, as in benchBody, so every claim checks that no earlier
	// event of the shipment goes first; a body per event, as the fan-out
	// stores it.
	seed := func() error {
		if _, err := api.db.ExecContext(ctx, `TRUNCATE webhooks.deliveries, webhooks.delivery_log, webhooks.event_bodies`); err != nil {
			return err
		}
		_, err := api.db.ExecContext(ctx, `
			WITH bodies AS (
				INSERT INTO webhooks.event_bodies (event_id, body, created_at)
				SELECT 'evt_seed' || lpad(i::text, 8, '0'), body, now() FROM unnest($3::text[]) WITH ORDINALITY AS t(body, i))
			INSERT INTO webhooks.deliveries (subscription_id, account_id, event_id, event_type, resource_id, next_attempt_at, created_at)
			SELECT $1, $2, 'evt_seed' || lpad(i::text, 8, '0'), 'shipment.updated', 'sh_bench' || lpad((i - 1)::text, 8, '0'), now(), now()
			FROM generate_series(1, cardinality($3::text[])) AS i`, subID, api.account, texts)
		if err != nil {
			return fmt.Errorf("seeding deliveries: %w", err)
		}
		return nil
	}

	// The same work without the network: shipd's claim loop, store and
	// command with a sender that answers 204 at once.
	if err := seed(); err != nil {
		return err
	}
	offline, err := bookkeepingOnly(ctx, api, n)
	if err != nil {
		return err
	}
	logf("shipd without the network: %d deliveries, %.0f/s", n, offline)

	// shipd: a delivering instance, running, finds n due deliveries of an
	// active subscription committed at once.
	deliverer, err := startService(ctx, dsn, func(c *config.Config) { c.WebhookConcurrency = deliveryConcurrency })
	if err != nil {
		return err
	}
	defer deliverer.stop()
	delivered := func() (float64, error) {
		if err := seed(); err != nil {
			return 0, err
		}
		hitsBefore := rc.hits.Load()
		// From the commit: before it the deliverer cannot see any of them.
		// The commit is signalled as a fan-out signals its own, so the
		// deliverer starts at once instead of at its next safety-net poll.
		stopProfile, err := profilePhase("webhooks")
		if err != nil {
			return 0, err
		}
		logf("shipd: delivering %d", n)
		start := time.Now()
		if err := messaging.Notify(ctx, api.db, command.DeliveriesDue); err != nil {
			return 0, err
		}
		// Done when the receiver got every delivery and the last attempt
		// is logged; counting rows while the worker runs would load
		// PostgreSQL, so the receiver's counter is watched first.
		for rc.hits.Load()-hitsBefore < int64(n) && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		for ctx.Err() == nil {
			var logged bool
			if err := api.db.GetContext(ctx, &logged, `SELECT NOT EXISTS (SELECT FROM webhooks.deliveries WHERE next_attempt_at IS NOT NULL)`); err != nil {
				return 0, err
			}
			if logged {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		took := time.Since(start)
		stopProfile()
		// A delivery that succeeds is deleted; its log stays.
		var ok, logs, left int
		for q, v := range map[string]*int{
			`SELECT count(*) FROM webhooks.delivery_log WHERE status = 'success'`: &ok,
			`SELECT count(*) FROM webhooks.delivery_log`:                          &logs,
			`SELECT count(*) FROM webhooks.deliveries`:                            &left,
		} {
			if err := api.db.GetContext(ctx, v, q); err != nil {
				return 0, err
			}
		}
		if got := rc.hits.Load() - hitsBefore; ok != n || logs != n || left != 0 || got != int64(n) {
			return 0, fmt.Errorf("shipd delivered %d of %d (%d logs, %d deliveries left, receiver got %d)", ok, n, logs, left, got)
		}
		logf("shipd: %d deliveries in %s, %.0f/s", n, took.Round(time.Millisecond), float64(n)/took.Seconds())
		return float64(n) / took.Seconds(), nil
	}

	// Rounds of the baseline then shipd, the round with the median ratio
	// reported: one round's ratio moves by a tenth between runs on a
	// shared machine, more than the gap it is compared with.
	runs := make([]throughputRound, webhookRounds)
	for r := range runs {
		if runs[r].bare, err = bare(r); err != nil {
			return err
		}
		if runs[r].shipd, err = delivered(); err != nil {
			return err
		}
	}
	slices.SortFunc(runs, func(a, b throughputRound) int { return cmp.Compare(a.ratio(), b.ratio()) })
	median := runs[len(runs)/2]

	// Latency: API writes at a steady pace while the deliverer runs.
	lat := make([]time.Duration, 0, samples)
	written := map[string]time.Time{}
	for i := range samples {
		at := time.Now()
		if _, err := api.call(http.MethodPut, "/v1/shipping-channels/"+api.channel, fmt.Sprintf(`{"name":"bench renamed %d"}`, i)); err != nil {
			return err
		}
		written[strconv.Itoa(i)] = at
		time.Sleep(20 * time.Millisecond)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rc.mu.Lock()
		got := len(rc.arrivals)
		rc.mu.Unlock()
		if got >= samples || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Match arrivals to writes by the channel name inside each logged body.
	rows := []struct {
		EventID string `db:"event_id"`
		Name    string `db:"name"`
	}{}
	if err := api.db.SelectContext(ctx, &rows, `SELECT DISTINCT l.event_id, b.body::json->'data'->'shipping_channel'->>'name' AS name
		FROM webhooks.delivery_log l JOIN webhooks.event_bodies b ON b.event_id = l.event_id WHERE l.event_type = 'shipping_channel.updated'`); err != nil {
		return err
	}
	rc.mu.Lock()
	for _, r := range rows {
		arrived, ok := rc.arrivals[r.EventID]
		wroteAt, wrote := written[strings.TrimPrefix(r.Name, "bench renamed ")]
		if ok && wrote {
			lat = append(lat, arrived.Sub(wroteAt))
		}
	}
	rc.mu.Unlock()
	if len(lat) < samples {
		return fmt.Errorf("latency: %d of %d events arrived within 30 s", len(lat), samples)
	}
	slices.Sort(lat)

	fmt.Fprintf(report, "## Webhook deliveries\n\n")
	fmt.Fprintf(report, "%d signed deliveries (a %d-byte shipment.updated body) to a receiver on loopback that answers 204,\n", n, len(bodies[0]))
	fmt.Fprintf(report, "%d at a time (`WEBHOOK_CONCURRENCY`), against a bare Go `http.Client` sending the same bodies with both\n", deliveryConcurrency)
	fmt.Fprintf(report, "signatures computed per request, %d goroutines, in the same run. shipd also claims deliveries (a slot-load per\n", deliveryConcurrency)
	fmt.Fprintf(report, "query), logs each attempt (headers, body, answer) and schedules what follows (one statement per group commit,\n")
	fmt.Fprintf(report, "written while the slots go on sending), while a second instance serves the API; both run their event\n")
	fmt.Fprintf(report, "subscribers (woken by LISTEN/NOTIFY). Timed from the commit of the n due deliveries to the last attempt logged.\n\n")
	fmt.Fprintf(report, "%d rounds, each the baseline then shipd; the round with the median ratio is shown (every round's ratio: %s).\n\n",
		len(runs), roundRatios(runs))
	fmt.Fprintf(report, "| sender | deliveries/s | ratio |\n|---|---|---|\n")
	fmt.Fprintf(report, "| bare Go client (baseline) | %.0f | 1.00× |\n", median.bare)
	fmt.Fprintf(report, "| shipd delivery worker | %.0f | **%.3f×** (target ≥ 0.35×) |\n", median.shipd, median.ratio())
	fmt.Fprintf(report, "| shipd without the network (sender answers 204 at once) | %.0f | %.2f× |\n\n", offline, offline/median.bare)
	fmt.Fprintf(report, "The last row is shipd's own work per delivery alone: the same claim loop, command and store, n deliveries\n")
	fmt.Fprintf(report, "claimed, signed and recorded with no POST. It bounds what the delivery worker can reach here: no worker\n")
	fmt.Fprintf(report, "that also sends runs faster than its bookkeeping alone.\n\n")
	fmt.Fprintf(report, "Event → first attempt: %d channel updates through the API, one every 20 ms; time from the request to the\n", samples)
	fmt.Fprintf(report, "receiver's first sight of its event (the fan-out handler woken by the commit's notification, then the\n")
	fmt.Fprintf(report, "delivery worker woken by the fan-out's; both poll only as a safety net, every 1 s): p50 %s, p99 **%s** (target < 100 ms), max %s.\n\n",
		ms(pct(lat, 50)), ms(pct(lat, 99)), ms(lat[len(lat)-1]))
	return nil
}

// webhookRounds is how many times the throughput is measured.
const webhookRounds = 3

// throughputRound is one measurement of both senders, in deliveries/s.
type throughputRound struct{ bare, shipd float64 }

func (r throughputRound) ratio() float64 { return r.shipd / r.bare }

// roundRatios lists the rounds' ratios, as they sort.
func roundRatios(runs []throughputRound) string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = fmt.Sprintf("%.3f×", r.ratio())
	}
	return strings.Join(out, ", ")
}

// bareSend is the baseline's whole job: sign and POST one body.
func bareSend(client *http.Client, url, secret, id string, body []byte) error {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	sig := "sha256=" + hex.EncodeToString(m.Sum(nil))
	s := hmac.New(sha256.New, []byte(secret))
	s.Write([]byte(id + "." + ts + "."))
	s.Write(body)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", sig)
	req.Header.Set("Webhook-Id", id)
	req.Header.Set("Webhook-Timestamp", ts)
	req.Header.Set("Webhook-Signature", "v1,"+base64.StdEncoding.EncodeToString(s.Sum(nil)))
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}

// instantReceiver answers every attempt 204 without a network.
type instantReceiver struct{}

func (instantReceiver) Send(context.Context, domain.Request) domain.Response {
	return domain.Response{Status: http.StatusNoContent}
}

// bookkeepingOnly runs shipd's delivery claim loop, command and store on
// the n due deliveries with instantReceiver as the sender, and returns
// deliveries per second.
func bookkeepingOnly(ctx context.Context, api *service, n int) (float64, error) {
	box, err := secrets.NewBox(benchSecretKey)
	if err != nil {
		return 0, err
	}
	store := adapters.NewDeliveryStore(api.db, box, clock.Real{})
	deliver := command.NewDeliverWebhookHandler(store, instantReceiver{}, clock.Real{}, usecasetest.Observer())
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	loop := server.ClaimLoop[command.DueDelivery]{
		Name: "bench.bookkeeping", Every: 200 * time.Millisecond, Concurrency: deliveryConcurrency,
		Claim: func(ctx context.Context, limit int) ([]command.DueDelivery, error) {
			return store.Claim(ctx, limit, time.Minute)
		},
		Do: func(ctx context.Context, d command.DueDelivery) {
			if err := deliver.Handle(ctx, command.DeliverWebhook{Delivery: d}); err != nil {
				logf("bookkeeping: %v", err)
			}
		},
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- loop.Run(runCtx) }()
	for ctx.Err() == nil {
		var left bool
		if err := api.db.GetContext(ctx, &left, `SELECT EXISTS (SELECT FROM webhooks.deliveries WHERE next_attempt_at IS NOT NULL)`); err != nil {
			return 0, err
		}
		if !left {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(start)
	cancel()
	<-done
	var logs int
	if err := api.db.GetContext(ctx, &logs, `SELECT count(*) FROM webhooks.delivery_log`); err != nil {
		return 0, err
	}
	if logs != n {
		return 0, fmt.Errorf("bookkeeping: %d logs for %d deliveries", logs, n)
	}
	return float64(n) / took.Seconds(), nil
}
