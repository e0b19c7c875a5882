package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
)

func channel(name string) map[string]any {
	return map[string]any{"name": name, "provider": "sandbox",
		"settings": map[string]any{"clientId": "id", "clientSecret": "secret"}}
}

// shipment is the body of a one-parcel COD shipment on the channel.
func shipment(channelID string) map[string]any {
	return map[string]any{
		"shipping_channel_id": channelID, "reference_number": "ORDER-1",
		"sender_contact":          map[string]any{"company_name": "Acme", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":       map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":          map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address":     map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"cash_on_delivery_amount": 120.5, "cash_on_delivery_currency": "CZK",
		"parcel": map[string]any{"parcel_type": "package", "length_dimension": 30, "width_dimension": 20, "height_dimension": 10,
			"dimension_unit": "CM", "weight_amount": 1.5, "weight_unit": "KG"},
	}
}

// Two instances on one database count one account's requests together, and
// each answer carries the decided headers.
func TestRateLimitSharedByTwoInstances(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	second := env.StartInstance()
	const limit = 30
	key := env.NewKeyWithLimit("limited", limit)

	var mu sync.Mutex
	statuses := map[int]int{}
	var last429 *apptest.Response
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			req := apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key}
			var res *apptest.Response
			if i%2 == 0 {
				res = env.Do(req)
			} else {
				res = second.Do(req)
			}
			mu.Lock()
			defer mu.Unlock()
			statuses[res.Status]++
			if res.Status == http.StatusTooManyRequests {
				last429 = res
			}
			if res.Header.Get("X-RateLimit-Limit") != strconv.Itoa(limit) || res.Header.Get("X-RateLimit-Remaining") == "" {
				t.Errorf("rate-limit headers missing: %v", res.Header)
			}
			if m := rateLimitField.FindStringSubmatch(res.Header.Get("RateLimit")); m == nil || m[1] != res.Header.Get("X-RateLimit-Remaining") ||
				res.Header.Get("RateLimit-Policy") != `"default";q=30;w=60` {
				t.Errorf("RateLimit %q, RateLimit-Policy %q beside X-RateLimit-Remaining %q", res.Header.Get("RateLimit"),
					res.Header.Get("RateLimit-Policy"), res.Header.Get("X-RateLimit-Remaining"))
			}
			reset, err := strconv.ParseInt(res.Header.Get("X-RateLimit-Reset"), 10, 64)
			if err != nil || reset <= time.Now().Unix()-1 || reset > time.Now().Unix()+61 {
				t.Errorf("X-RateLimit-Reset = %q", res.Header.Get("X-RateLimit-Reset"))
			}
		})
	}
	wg.Wait()
	if statuses[200] != limit || statuses[429] != 10 {
		t.Fatalf("statuses = %v, want exactly %d × 200 and 10 × 429 across both instances", statuses, limit)
	}
	body := last429.JSON(t)
	e := body["error"].(map[string]any)
	retry, _ := strconv.Atoi(last429.Header.Get("Retry-After"))
	if e["code"] != "rate_limit_exceeded" || retry < 1 || retry > 60 || e["retry_after"] != float64(retry) ||
		last429.Header.Get("X-RateLimit-Remaining") != "0" || !strings.HasPrefix(last429.Header.Get("RateLimit"), `"default";r=0;t=`) {
		t.Errorf("429 answer: %v %s", last429.Header, last429.Body)
	}
	// Another account is not affected.
	if res := second.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: env.NewKey("other")}); res.Status != 200 {
		t.Errorf("other account: %d", res.Status)
	}
}

// The same Idempotency-Key and body give the first answer again; another
// body is refused; the write happened once.
func TestIdempotentCreate(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	req := apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key, Body: channel("Once"),
		Headers: map[string]string{"Idempotency-Key": "create-once-1"}}

	first := env.Do(req)
	if first.Status != http.StatusCreated || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.Status, first.Header, first.Body)
	}
	again := env.StartInstance().Do(req) // another instance sees the same key
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
		t.Fatalf("replay: %d %v %s", again.Status, again.Header, again.Body)
	}
	if again.Header.Get("Location") != first.Header.Get("Location") {
		t.Errorf("replayed Location %q vs %q", again.Header.Get("Location"), first.Header.Get("Location"))
	}
	other := req
	other.Body = channel("Different")
	res := env.Do(other)
	if res.Status != 422 || res.JSON(t)["error"].(map[string]any)["code"] != "idempotency_key_reused" {
		t.Fatalf("reuse: %d %s", res.Status, res.Body)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM channels.channels`); err != nil || n != 1 {
		t.Fatalf("channels = %d (%v), want 1", n, err)
	}
	// A validation failure changed nothing, so it is not stored (issue
	// 31): the same key answers it anew, and takes the corrected request.
	bad := apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: key, Body: map[string]any{"name": ""},
		Headers: map[string]string{"Idempotency-Key": "bad-1"}}
	if r1, r2 := env.Do(bad), env.Do(bad); r1.Status != 422 || r2.Status != 422 || r2.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a refused request again: %d %d %v", r1.Status, r2.Status, r2.Header)
	}
	fixed := bad
	fixed.Body = channel("Fixed")
	if res := env.Do(fixed); res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the corrected request under the refused one's key: %d %s", res.Status, res.Body)
	}
	// Keys belong to accounts: another account may use the same key.
	if res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipping-channels", Key: env.NewKey("globex"), Body: channel("Once"),
		Headers: map[string]string{"Idempotency-Key": "create-once-1"}}); res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("other account with the same key: %d %v", res.Status, res.Header)
	}
}

// Every request gets an X-Request-Id, and a sane incoming one is kept.
func TestRequestID(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels", Headers: map[string]string{"X-Request-Id": "abc-123"}})
	if res.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("X-Request-Id = %q", res.Header.Get("X-Request-Id"))
	}
	if res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/healthz"}); res.Status != 200 || res.Header.Get("X-Request-Id") == "" {
		t.Errorf("healthz: %d %v", res.Status, res.Header)
	}
}
