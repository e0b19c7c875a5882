package shipd_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	shipd "shipd/sdk/go"
)

// TestPagination reads more channels than fit on a page, page by page.
func TestPagination(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	c, rec := newClient(t, apiKey)
	prefix := unique("paged")
	want := map[string]bool{}
	for i := range 5 {
		want[newChannel(t, ctx, c, prefix+"-"+strconv.Itoa(i), "b", false).Id] = true
	}
	// The list is a read model: wait until it has all five.
	if !contains(t, c.ShippingChannels(ctx, &shipd.ListShippingChannelsParams{PerPage: ptr(100)}), func(ch shipd.ShippingChannel) bool {
		return strings.HasPrefix(ch.Name, prefix+"-4")
	}) {
		t.Fatal("the last channel never listed")
	}
	// Then one iteration over pages of two, by a client of its own whose
	// requests are all of that iteration.
	reader, rec := newClient(t, apiKey)
	got := map[string]int{}
	for ch, err := range reader.ShippingChannels(ctx, &shipd.ListShippingChannelsParams{PerPage: ptr(2)}) {
		if err != nil {
			t.Fatal(err)
		}
		if want[ch.Id] {
			got[ch.Id]++
		}
	}
	if len(got) != len(want) {
		t.Fatalf("iterated %d of the %d channels: %v", len(got), len(want), got)
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("channel %s yielded %d times", id, n)
		}
	}
	pages := pagesAsked(rec)
	if len(pages) < 3 {
		t.Fatalf("five channels read in pages %v of per_page=2", pages)
	}
	for i, p := range pages {
		if p != strconv.Itoa(i+1) {
			t.Fatalf("pages asked for: %v, not 1, 2, 3, …", pages)
		}
	}

	// Leaving the loop after one item reads no further page.
	reader, rec = newClient(t, apiKey)
	for _, err := range reader.ShippingChannels(ctx, &shipd.ListShippingChannelsParams{PerPage: ptr(1)}) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if pages := pagesAsked(rec); len(pages) != 1 {
		t.Fatalf("a loop left after one item read pages %v", pages)
	}
}

// pagesAsked lists the page parameter of each list request, in order.
func pagesAsked(rec *recorder) []string {
	var pages []string
	for _, ex := range rec.exchanges() {
		if ex.operation == "listShippingChannels" {
			pages = append(pages, ex.query.Get("page"))
		}
	}
	return pages
}

// TestIdempotentReplay: a POST sent again with the same Idempotency-Key is
// answered with the first answer, and creates nothing more.
func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	c, rec := newClient(t, apiKey)
	name := unique("replayed")
	body := shipd.CreateShippingChannel{Name: name, Provider: "sandbox", Settings: &map[string]any{"clientId": "a", "clientSecret": "b"}}
	key := unique("order-key")
	first, err := c.CreateShippingChannelWithResponse(ctx, &shipd.CreateShippingChannelParams{IdempotencyKey: &key}, body)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreateShippingChannelWithResponse(ctx, &shipd.CreateShippingChannelParams{IdempotencyKey: &key}, body)
	if err != nil {
		t.Fatal(err)
	}
	if again.JSON201.Data.Id != first.JSON201.Data.Id || again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %s (replayed %q), first %s", again.JSON201.Data.Id, again.HTTPResponse.Header.Get("Idempotent-Replayed"), first.JSON201.Data.Id)
	}
	for _, ex := range rec.exchanges() {
		if ex.requestHeader.Get("Idempotency-Key") != key {
			t.Fatalf("sent Idempotency-Key %q, not the caller's %q", ex.requestHeader.Get("Idempotency-Key"), key)
		}
	}
	// Without a key of the caller's, each call has a key of its own: the
	// channel names must differ (a name is unique in an account), and so do
	// the keys sent.
	body.Name = name + "-other"
	other, err := c.CreateShippingChannelWithResponse(ctx, nil, body)
	if err != nil {
		t.Fatal(err)
	}
	if other.JSON201.Data.Id == first.JSON201.Data.Id {
		t.Fatal("two calls without a key were taken as one")
	}
	auto := rec.exchanges()[2].requestHeader.Get("Idempotency-Key")
	if auto == "" || auto == key {
		t.Fatalf("automatic Idempotency-Key %q", auto)
	}
	if n := countNamed(t, ctx, c, name, 1); n != 1 {
		t.Fatalf("%d channels named %s after a create and its replay, want 1", n, name)
	}
}

// countNamed counts the listed channels named name, once the list has want
// of them or a few seconds have passed (the list trails writes).
func countNamed(t *testing.T, ctx context.Context, c *shipd.Client, name string, want int) int {
	t.Helper()
	count := func() int {
		n := 0
		for ch, err := range c.ShippingChannels(ctx, &shipd.ListShippingChannelsParams{PerPage: ptr(100)}) {
			if err != nil {
				t.Fatal(err)
			}
			if ch.Name == name {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := count()
		if n >= want {
			time.Sleep(500 * time.Millisecond) // then count again: no more may arrive
			return count()
		}
		if time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRateLimitRetried: past the account's limit shipd answers 429 with
// Retry-After; the client waits that long and sends the request again.
func TestRateLimitRetried(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 3*time.Minute)
	// Without retries, the 429 is an *Error that says how long to wait.
	once, _ := newClient(t, limitedKey, shipd.MaxRetries(0))
	var limited *shipd.Error
	for i := 0; limited == nil; i++ {
		if i > 10 {
			t.Fatal("no 429 within 10 requests on a limit of 5 a minute")
		}
		_, err := once.ListProvidersWithResponse(ctx)
		if err != nil && !errors.As(err, &limited) {
			t.Fatal(err)
		}
	}
	if limited.Status != http.StatusTooManyRequests || limited.Code != "rate_limit_exceeded" || limited.RetryAfter <= 0 || !strings.HasPrefix(limited.RequestID, "req_") {
		t.Fatalf("429 as %#v", limited)
	}
	// With retries, the same request waits out the window and succeeds.
	c, rec := newClient(t, limitedKey)
	start := time.Now()
	if _, err := c.ListProvidersWithResponse(ctx); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	seen := rec.exchanges()
	if len(seen) != 2 || seen[0].status != http.StatusTooManyRequests || seen[1].status != http.StatusOK {
		t.Fatalf("exchanges %v, want a 429 then a 200", statuses(seen))
	}
	wait, err := strconv.Atoi(seen[0].header.Get("Retry-After"))
	if err != nil || elapsed < time.Duration(wait)*time.Second {
		t.Fatalf("retried after %s, but Retry-After was %q", elapsed, seen[0].header.Get("Retry-After"))
	}
}

func statuses(seen []exchange) []int {
	s := make([]int, len(seen))
	for i, ex := range seen {
		s[i] = ex.status
	}
	return s
}

// TestUnavailableRetried: a carrier that cannot be reached is a 503; the
// client retries it with backoff, with the same Idempotency-Key, and then
// returns the typed error.
func TestUnavailableRetried(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	c, rec := newClient(t, apiKey, shipd.MaxRetries(2), shipd.RetryBackoff(50*time.Millisecond))
	ch := newChannel(t, ctx, c, unique("unreachable"), "unavailable", false)
	_, err := c.ValidateShippingChannelWithResponse(ctx, ch.Id, nil)
	var e *shipd.Error
	if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable || e.Code != "provider_unavailable" {
		t.Fatalf("validate of an unreachable carrier: %v", err)
	}
	var keys []string
	for _, ex := range rec.exchanges() {
		if ex.operation == "validateShippingChannel" {
			if ex.status != http.StatusServiceUnavailable {
				t.Fatalf("validate answered %d", ex.status)
			}
			keys = append(keys, ex.requestHeader.Get("Idempotency-Key"))
		}
	}
	if len(keys) != 3 || keys[0] == "" || keys[1] != keys[0] || keys[2] != keys[0] {
		t.Fatalf("validate sent with keys %q, want three sends with one key", keys)
	}
}

// TestTypedErrors: each error answer is an *Error with the status, code,
// per-field reasons and request id shipd gave.
func TestTypedErrors(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	c, _ := newClient(t, apiKey)
	ch := newChannel(t, ctx, c, unique("refusing"), "b", true)
	invalid := shipmentInput(ch.Id, unique("INVALID"), "60200")
	invalid.DestinationAddress.CityName = ""
	_, err := c.CreateShipmentWithResponse(ctx, nil, invalid)
	var e *shipd.Error
	if !errors.As(err, &e) {
		t.Fatalf("%T %v is not an *shipd.Error", err, err)
	}
	if e.Status != http.StatusUnprocessableEntity || e.Code != "validation_failed" || len(e.Fields) == 0 || !strings.HasPrefix(e.RequestID, "req_") {
		t.Fatalf("422 as %#v", e)
	}
	if len(e.Fields["destination_address.city_name"]) == 0 {
		t.Fatalf("no reason for destination_address.city_name among %v", e.Fields)
	}
	if !strings.Contains(err.Error(), e.RequestID) {
		t.Fatalf("the message %q does not quote the request id", err)
	}
	_, err = c.GetShipmentWithResponse(ctx, "sh_01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if !errors.As(err, &e) || e.Status != http.StatusNotFound || e.Code == "" {
		t.Fatalf("unknown shipment: %v", err)
	}
	// A label of a shipment the carrier refused: 404 label_not_available,
	// and nothing written to the writer.
	sh, err := c.CreateShipmentWithResponse(ctx, nil, shipmentInput(ch.Id, unique("REFUSED"), "99999"))
	if err != nil {
		t.Fatal(err)
	}
	var sink strings.Builder
	if _, err := c.DownloadLabel(ctx, sh.JSON201.Data.Id, &sink); !errors.As(err, &e) || e.Status != http.StatusNotFound || e.Code != "label_not_available" || sink.Len() != 0 {
		t.Fatalf("label of a pending shipment: %v (%d bytes written)", err, sink.Len())
	}
	bad, _ := newClient(t, "shp_not_a_key")
	if _, err := bad.ListProvidersWithResponse(ctx); !errors.As(err, &e) || e.Status != http.StatusUnauthorized {
		t.Fatalf("a wrong key: %v", err)
	}
}

// lossyProxy stands between the client and the real shipd and loses the
// answers of the first `lose` requests: each request reaches shipd and is
// carried out, then the connection is closed before the answer is sent,
// as when a network breaks at the worst moment.
type lossyProxy struct {
	*httptest.Server
	mu       sync.Mutex
	lose     int
	received map[string]int // method: requests
}

func newLossyProxy(t *testing.T, lose int) *lossyProxy {
	p := &lossyProxy{lose: lose, received: map[string]int{}}
	target, _ := url.Parse(shipdURL)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, target.String()+r.URL.RequestURI(), strings.NewReader(string(body)))
		out.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		p.mu.Lock()
		p.received[r.Method]++
		lost := p.lose > 0
		if lost {
			p.lose--
		}
		p.mu.Unlock()
		if lost {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *lossyProxy) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.received[method]
}

// TestNetworkErrorRetriedOnlyWhenIdempotent: a lost answer is retried for a
// GET and for a POST with its Idempotency-Key (shipd replays the first
// answer: one channel, not two), never for a PATCH, a DELETE (sent again
// after it worked it would answer 404) or a POST without a key.
func TestNetworkErrorRetriedOnlyWhenIdempotent(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	direct, _ := newClient(t, apiKey)

	t.Run("GET", func(t *testing.T) {
		p := newLossyProxy(t, 1)
		c, _ := newClientAt(t, p.URL, apiKey, shipd.RetryBackoff(10*time.Millisecond))
		if _, err := c.ListProvidersWithResponse(ctx); err != nil {
			t.Fatal(err)
		}
		if n := p.count(http.MethodGet); n != 2 {
			t.Fatalf("GET sent %d times, want 2", n)
		}
	})
	t.Run("POST with its key", func(t *testing.T) {
		p := newLossyProxy(t, 1)
		c, rec := newClientAt(t, p.URL, apiKey, shipd.RetryBackoff(10*time.Millisecond))
		name := unique("lost-answer")
		res, err := c.CreateShippingChannelWithResponse(ctx, nil, shipd.CreateShippingChannel{Name: name, Provider: "sandbox", Settings: &map[string]any{"clientId": "a", "clientSecret": "b"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := p.count(http.MethodPost); n != 2 || res.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("POST sent %d times, replayed %q", n, res.HTTPResponse.Header.Get("Idempotent-Replayed"))
		}
		if seen := rec.exchanges(); len(seen) != 2 || seen[0].requestHeader.Get("Idempotency-Key") != seen[1].requestHeader.Get("Idempotency-Key") {
			t.Fatal("the retry did not carry the first send's key")
		}
		if n := countNamed(t, ctx, direct, name, 1); n != 1 {
			t.Fatalf("%d channels named %s after a retried create, want 1", n, name)
		}
	})
	t.Run("PATCH", func(t *testing.T) {
		ch := newChannel(t, ctx, direct, unique("patched"), "b", false)
		p := newLossyProxy(t, 1)
		c, _ := newClientAt(t, p.URL, apiKey, shipd.RetryBackoff(10*time.Millisecond))
		_, err := c.UpdateShippingChannelWithResponse(ctx, ch.Id, shipd.UpdateShippingChannel{Description: ptr("once")})
		var e *shipd.Error
		if err == nil || errors.As(err, &e) {
			t.Fatalf("a lost PATCH answer returned %v, want the network error", err)
		}
		if n := p.count(http.MethodPatch); n != 1 {
			t.Fatalf("PATCH sent %d times, want 1", n)
		}
	})
	t.Run("DELETE", func(t *testing.T) {
		ch := newChannel(t, ctx, direct, unique("deleted"), "b", false)
		p := newLossyProxy(t, 1)
		c, _ := newClientAt(t, p.URL, apiKey, shipd.RetryBackoff(10*time.Millisecond))
		_, err := c.DeleteShippingChannelWithResponse(ctx, ch.Id)
		var e *shipd.Error
		if err == nil || errors.As(err, &e) {
			t.Fatalf("a lost DELETE answer returned %v, want the network error (not a 404 of a second send)", err)
		}
		if n := p.count(http.MethodDelete); n != 1 {
			t.Fatalf("DELETE sent %d times, want 1", n)
		}
	})
	t.Run("POST without a key", func(t *testing.T) {
		p := newLossyProxy(t, 1)
		c, rec := newClientAt(t, p.URL, apiKey, shipd.RetryBackoff(10*time.Millisecond))
		_, err := c.CreateShippingChannelWithResponse(shipd.WithoutIdempotencyKey(ctx), nil,
			shipd.CreateShippingChannel{Name: unique("keyless"), Provider: "sandbox", Settings: &map[string]any{"clientId": "a", "clientSecret": "b"}})
		if err == nil {
			t.Fatal("a lost answer of a POST without a key was retried")
		}
		if n := p.count(http.MethodPost); n != 1 || rec.exchanges()[0].requestHeader.Get("Idempotency-Key") != "" {
			t.Fatalf("POST sent %d times (key %q), want once without a key", n, rec.exchanges()[0].requestHeader.Get("Idempotency-Key"))
		}
	})
}
