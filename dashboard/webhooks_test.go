package dashboard_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
)

// webhookReceiver is a real HTTP server on loopback (apptest allows private
// networks for deliveries) that records each delivery and answers status
// with body.
type webhookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []webhookReceived
}

type webhookReceived struct {
	Path   string
	Header http.Header
	Body   []byte
}

func newWebhookReceiver(t *testing.T, status int, body string) *webhookReceiver {
	rc := &webhookReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, webhookReceived{Path: r.URL.Path, Header: r.Header.Clone(), Body: raw})
		rc.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Receiver-Header", "not kept by the API")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *webhookReceiver) received() []webhookReceived {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]webhookReceived(nil), rc.got...)
}

// The machine is shared and slow at times: these bound waits for the
// workers, they do not time anything.
const webhookWait = 2 * time.Minute

func webhookSubscribe(t *testing.T, env *apptest.Env, key, name, target string) string {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/webhook-subscriptions", Key: key,
		Body: map[string]any{"name": name, "url": target, "events": []string{"shipping_channel.created"}}})
	if res.Status != http.StatusCreated {
		t.Fatalf("subscribing %s: %d %s", name, res.Status, res.Body)
	}
	return res.Data(t)["id"].(string)
}

// webhookChannel creates a sandbox channel: one shipping_channel.created event.
func webhookChannel(t *testing.T, env *apptest.Env, key, name string) string {
	t.Helper()
	return env.SandboxChannel(key, name, nil)
}

// webhookLogs waits until the subscription has a log and returns them as the
// API answers them, newest first.
func webhookLogs(t *testing.T, env *apptest.Env, key, subID string) []map[string]any {
	t.Helper()
	var logs []map[string]any
	apptest.Eventually(t, webhookWait, "a delivery logged for "+subID, func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions/" + subID + "/logs", Key: key})
		if res.Status != http.StatusOK {
			t.Fatalf("logs: %d %s", res.Status, res.Body)
		}
		var body struct {
			Data []map[string]any `json:"data"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil {
			t.Fatal(err)
		}
		logs = body.Data
		return len(logs) > 0
	})
	return logs
}

// shownTime is how the pages write an RFC 3339 time from the API.
func shownTime(t *testing.T, v any) string {
	t.Helper()
	s, _ := v.(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("time %v: %v", v, err)
	}
	return at.UTC().Format("2006-01-02 15:04:05 UTC")
}

// A delivery the receiver answers with 500 shows on the list, the
// subscription's log (with its retry) and the attempt's own page, to the
// account only and only under its own subscription.
func TestWebhookLogsShowFailedAttempt(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	b := signIn(t, env, "acme", "jana@example.com")
	const answer = `{"error":"receiver down","code":"R500"}`
	rc := newWebhookReceiver(t, http.StatusInternalServerError, answer)
	subID := webhookSubscribe(t, env, key, "Orders system", rc.URL+"/orders")
	siblingID := webhookSubscribe(t, env, key, "Warehouse", rc.URL+"/warehouse")
	channelID := webhookChannel(t, env, key, "Main")

	log := webhookLogs(t, env, key, subID)[0]
	siblingLog := webhookLogs(t, env, key, siblingID)[0]
	logID, siblingLogID := log["id"].(string), siblingLog["id"].(string)
	if log["status"] != "failed" || log["response_status"] != 500.0 || log["next_retry_at"] == nil {
		t.Fatalf("the API's log is not a failed attempt with a retry: %v", log)
	}

	// The list.
	sub := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions/" + subID, Key: key}).Data(t)
	status, page, _ := b.do(http.MethodGet, "/dashboard/webhooks", nil)
	if status != http.StatusOK {
		t.Fatalf("list: %d\n%s", status, text(page))
	}
	row := regexp.MustCompile(`(?s)<tr data-webhook-id="` + subID + `">.*?</tr>`).FindString(page)
	if got := text(row); !strings.Contains(row, `href="/dashboard/webhooks/`+subID+`"`) || !strings.Contains(got, "Orders system") ||
		!strings.Contains(got, rc.URL+"/orders") || !strings.Contains(got, "shipping_channel.created") || !strings.Contains(got, "active") ||
		!strings.Contains(got, shownTime(t, sub["created_at"])) {
		t.Errorf("the list's row of the subscription:\n%s", got)
	}

	// The subscription and its log.
	status, page, _ = b.do(http.MethodGet, "/dashboard/webhooks/"+subID, nil)
	if status != http.StatusOK {
		t.Fatalf("detail: %d\n%s", status, text(page))
	}
	row = regexp.MustCompile(`(?s)<tr data-log-id="` + logID + `">.*?</tr>`).FindString(page)
	if got := text(row); !strings.Contains(row, `href="/dashboard/webhooks/`+subID+`/logs/`+logID+`"`) ||
		!strings.Contains(got, "shipping_channel.created") || !strings.Contains(got, "failed") || !strings.Contains(got, "HTTP 500") ||
		!strings.Contains(got, shownTime(t, log["created_at"])) || !strings.Contains(got, shownTime(t, log["next_retry_at"])) ||
		!strings.Contains(got, strconv.Itoa(int(log["duration_ms"].(float64)))+" ms") {
		t.Errorf("the log's row (want event, outcome, 500, time, duration and next retry %s):\n%s", shownTime(t, log["next_retry_at"]), got)
	}
	if strings.Contains(page, siblingLogID) {
		t.Error("the other subscription's attempt is on this subscription's log")
	}
	if got := text(page); !strings.Contains(got, "••••••••••••••••") {
		t.Errorf("the secret is not shown masked as the API masks it:\n%s", got)
	}

	// Filters go to the API.
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"?status=failed", true},
		{"?status=success", false},
		{"?status=failed&event_type=shipping_channel.created", true},
		{"?event_type=shipment.created", false},
	} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/webhooks/"+subID+c.query, nil)
		if status != http.StatusOK || strings.Contains(page, `data-log-id="`+logID+`"`) != c.want {
			t.Errorf("%s: %d, attempt listed %v, want %v", c.query, status, !c.want, c.want)
		}
		if !c.want && !strings.Contains(text(page), "No delivery attempts match the filters") {
			t.Errorf("%s: no word that nothing matched", c.query)
		}
	}
	if status, page, _ := b.do(http.MethodGet, "/dashboard/webhooks/"+subID+"?status=bogus", nil); status != http.StatusUnprocessableEntity ||
		!strings.Contains(text(page), "status: must be one of: success, failed") {
		t.Errorf("a filter the API refuses: %d\n%s", status, text(page))
	}

	// One attempt in full.
	status, page, _ = b.do(http.MethodGet, "/dashboard/webhooks/"+subID+"/logs/"+logID, nil)
	if status != http.StatusOK {
		t.Fatalf("log page: %d\n%s", status, text(page))
	}
	got := text(page)
	// Indented in the order it was sent and signed, not re-ordered.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(log["request_body"].(string)), "", "  "); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, `<pre id="request-body">`) || !strings.Contains(got, text(pretty.String())) ||
		!strings.Contains(got, `"type": "shipping_channel.created"`) || !strings.Contains(got, channelID) {
		t.Errorf("the request body (the event, pretty):\n%s", got)
	}
	if !strings.Contains(got, `"error": "receiver down"`) || !strings.Contains(got, `"code": "R500"`) || !strings.Contains(got, "HTTP 500") {
		t.Errorf("the response the receiver sent:\n%s", got)
	}
	headers := log["request_headers"].(map[string]any)
	if sig, _ := headers["X-Service-Signature"].(string); sig == "" || !strings.Contains(got, sig) || !strings.Contains(got, "X-Service-Event shipping_channel.created") {
		t.Errorf("the request headers (signature %q):\n%s", sig, got)
	}
	if !strings.Contains(got, "POST "+rc.URL+"/orders") || !strings.Contains(got, "the receiver answered HTTP 500") ||
		!strings.Contains(got, shownTime(t, log["next_retry_at"])) || !strings.Contains(got, "attempt 1") {
		t.Errorf("URL, error, next retry or attempt missing:\n%s", got)
	}
	if strings.Contains(got, "not kept by the API") {
		t.Error("the page shows a response header the API does not return")
	}

	// A log of another subscription, even of the same account, is not shown
	// under this one.
	for _, path := range []string{
		"/dashboard/webhooks/" + subID + "/logs/" + siblingLogID,
		"/dashboard/webhooks/" + siblingID + "/logs/" + logID,
		"/dashboard/webhooks/" + subID + "/logs/whl_01JZZZZZZZZZZZZZZZZZZZZZZZ",
		"/dashboard/webhooks/" + subID + "/logs/not.an.id",
		"/dashboard/webhooks/wh_01JZZZZZZZZZZZZZZZZZZZZZZZ",
		"/dashboard/webhooks/not.an.id",
	} {
		status, page, _ := b.do(http.MethodGet, path, nil)
		if status != http.StatusForbidden || !strings.Contains(text(page), "Your account has no webhook") || strings.Contains(page, "request-body") {
			t.Errorf("%s: %d, want 403 showing nothing\n%s", path, status, text(page))
		}
	}

	// Another account sees none of it, nor with its own subscription's id.
	otherKey := env.NewKey("globex")
	otherSub := webhookSubscribe(t, env, otherKey, "Globex", rc.URL+"/globex")
	other := signIn(t, env, "globex", "max@example.com")
	if _, page, _ := other.do(http.MethodGet, "/dashboard/webhooks", nil); strings.Contains(page, subID) || !strings.Contains(page, otherSub) {
		t.Errorf("another account's list:\n%s", text(page))
	}
	for _, path := range []string{
		"/dashboard/webhooks/" + subID,
		"/dashboard/webhooks/" + subID + "?status=failed",
		"/dashboard/webhooks/" + subID + "/logs/" + logID,
		"/dashboard/webhooks/" + otherSub + "/logs/" + logID,
	} {
		status, page, _ := other.do(http.MethodGet, path, nil)
		if got := text(page); status != http.StatusForbidden || !strings.Contains(got, "Your account has no webhook") ||
			strings.Contains(got, "Orders system") || strings.Contains(got, "another account") || strings.Contains(page, "request-body") {
			t.Errorf("another account at %s: %d, want 403 showing nothing\n%s", path, status, got)
		}
	}
}

var shownSecret = regexp.MustCompile(`<code id="new-secret">([^<]+)</code>`)

// A subscription made with the form shows its generated secret once, and it
// is the secret deliveries are signed with; refusals show the API's reasons;
// the list pages; a forged form token changes nothing.
func TestWebhookCreateFormAndList(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	b := signIn(t, env, "acme", "jana@example.com")
	rc := newWebhookReceiver(t, http.StatusNoContent, "")

	page, secret := b.createShownOnce("/dashboard/webhooks", url.Values{"name": {"Shop"}, "url": {rc.URL + "/shop"},
		"events": {"shipping_channel.created", "shipment.created"}, "active": {"true"}}, shownSecret, "generated secret")
	if !strings.Contains(text(page), "shipping_channel.created, shipment.created") {
		t.Errorf("the new subscription is not listed:\n%s", text(page))
	}
	if _, page, _ := b.do(http.MethodGet, "/dashboard/webhooks", nil); strings.Contains(page, secret) || !strings.Contains(page, "Shop") {
		t.Error("the secret is shown again, or the subscription is not listed")
	}
	webhookChannel(t, env, key, "Main")
	apptest.Eventually(t, webhookWait, "the delivery", func() bool { return len(rc.received()) > 0 })
	got := rc.received()[0]
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(got.Body)
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); got.Header.Get("X-Service-Signature") != want {
		t.Errorf("the delivery is not signed with the secret shown: %q", got.Header.Get("X-Service-Signature"))
	}

	// The API's reasons, the form kept, nothing made.
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {"Bad"}, "url": {"ftp://example.com/x"}, "events": {"shipping_channel.created"}}, "url: must be a valid URL"},
		{url.Values{"name": {"Bad"}, "url": {rc.URL}}, "events: must contain at least one event type"},
		{url.Values{"name": {"Bad"}, "url": {rc.URL}, "events": {"everything"}}, "events.0: must be one of"},
		{url.Values{"name": {"Bad"}, "url": {rc.URL}, "events": {"shipment.created"}, "secret": {"short"}}, "secret: must be at least 8 characters"},
		{url.Values{"name": {" "}, "url": {rc.URL}, "events": {"shipment.created"}}, "name: is required"},
		{url.Values{"name": {"Bad"}, "url": {rc.URL + "/a b"}, "events": {"shipment.created"}}, "url: must not contain spaces or control characters (found ' ')"},
		{url.Values{"name": {"Bad"}, "url": {rc.URL + "\r\n"}, "events": {"shipment.created"}}, `url: must not contain spaces or control characters (found '\r')`},
		{url.Values{"name": {"Bad"}, "url": {rc.URL}, "events": {"shipment.created"}, "secret": {"         "}}, "secret: must not be only white space"},
	} {
		status, page, _ := b.post("/dashboard/webhooks", "/dashboard/webhooks", c.form)
		if got := text(page); status != http.StatusUnprocessableEntity || !strings.Contains(got, c.want) || shownSecret.MatchString(page) {
			t.Errorf("%v: %d, want 422 saying %q:\n%s", c.form, status, c.want, got)
		}
		if c.form.Get("url") == rc.URL && !strings.Contains(page, `value="`+rc.URL+`"`) {
			t.Errorf("%v: the form's URL is not kept", c.form)
		}
		if strings.Contains(page, `value="short"`) {
			t.Errorf("%v: the typed secret is put back into the page", c.form)
		}
	}
	// Text that is not UTF-8 reaches the API as typed, and its 400 is shown.
	if status, page, _ := b.post("/dashboard/webhooks", "/dashboard/webhooks", url.Values{"name": {"Objedn\xe1vky"}, "url": {rc.URL},
		"events": {"shipment.created"}}); status != http.StatusBadRequest || !strings.Contains(text(page), "The subscription was not created. The request body is not valid UTF-8") {
		t.Errorf("a name not UTF-8: %d\n%s", status, text(page))
	}
	// A form without the session's token.
	if status, _, _ := b.do(http.MethodPost, "/dashboard/webhooks", url.Values{"csrf_token": {"forged"}, "name": {"Forged"},
		"url": {rc.URL}, "events": {"shipment.created"}}); status != http.StatusForbidden {
		t.Errorf("create with a forged form token: %d, want 403", status)
	}
	if status, _, _ := b.do(http.MethodPost, "/dashboard/webhooks", url.Values{"name": {"Forged"},
		"url": {rc.URL}, "events": {"shipment.created"}}); status != http.StatusForbidden {
		t.Errorf("create without a form token: %d, want 403", status)
	}
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/webhook-subscriptions", Key: key})
	if total := res.JSON(t)["meta"].(map[string]any)["total"]; total != 1.0 {
		t.Fatalf("%v subscriptions after one accepted form, want 1", total)
	}

	// A given secret is not shown; 21 subscriptions make two pages, Shop on
	// the second as the oldest: the others are made in a later second.
	env.NextSecond()
	if status, page, _ := b.post("/dashboard/webhooks", "/dashboard/webhooks", url.Values{"name": {"Own secret"}, "url": {rc.URL},
		"events": {"shipment.created"}, "secret": {"my-own-secret"}}); status != http.StatusCreated || shownSecret.MatchString(page) || strings.Contains(page, "my-own-secret") {
		t.Errorf("create with a secret: %d, secret shown %v", status, shownSecret.MatchString(page))
	}
	for i := range 19 {
		webhookSubscribe(t, env, key, "Sub "+strconv.Itoa(i), rc.URL)
	}
	_, page, _ = b.do(http.MethodGet, "/dashboard/webhooks", nil)
	if n := strings.Count(page, "data-webhook-id="); n != 20 || !strings.Contains(page, `href="/dashboard/webhooks?page=2"`) || !strings.Contains(text(page), "page 1 of 2") {
		t.Errorf("page 1: %d rows, want 20 and a link to page 2\n%s", n, text(page))
	}
	_, page, _ = b.do(http.MethodGet, "/dashboard/webhooks?page=2", nil)
	if n := strings.Count(page, "data-webhook-id="); n != 1 || !strings.Contains(page, `href="/dashboard/webhooks"`) || !strings.Contains(text(page), "Shop") {
		t.Errorf("page 2: %d rows, want the oldest, Shop\n%s", n, text(page))
	}
	if status, page, _ := b.do(http.MethodGet, "/dashboard/webhooks?page=x", nil); status != http.StatusUnprocessableEntity || !strings.Contains(text(page), "page: must be an integer") {
		t.Errorf("page=x: %d\n%s", status, text(page))
	}
}
