package shipd_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	shipd "shipd/sdk/go"
)

// TestWebhooksVerified: deliveries a real shipd sent verify with the SDK,
// with a plain HMAC check of the GitHub-style header, and with the Standard
// Webhooks reference library; altered ones are refused, each way with its
// own error.
func TestWebhooksVerified(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	c, _ := newClient(t, apiKey)
	rcv := newReceiver(t)
	secret := "sdk-go-webhook-secret"
	events := []shipd.EventType{shipd.EventTypeShippingChannelCreated, shipd.EventTypeShippingChannelValidated, shipd.EventTypeShipmentCreated, shipd.EventTypeShipmentUpdated}
	if _, err := c.CreateWebhookSubscriptionWithResponse(ctx, nil, shipd.CreateWebhookSubscription{
		Name: "verified", Url: rcv.URL, Secret: &secret, Events: events,
	}); err != nil {
		t.Fatal(err)
	}
	ch := newChannel(t, ctx, c, unique("webhooks"), "b", true)
	sh, err := c.CreateShipmentWithResponse(ctx, nil, shipmentInput(ch.Id, unique("HOOK"), "60200"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateShipmentWithResponse(ctx, sh.JSON201.Data.Id, shipd.UpdateShipment{ReferenceNumber: ptr(unique("HOOK"))}); err != nil {
		t.Fatal(err)
	}

	for _, want := range events {
		d := rcv.await(t, ctx, string(want), ch.Id)
		ev, err := shipd.VerifyWebhook(secret, d.header, d.body)
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		typ, _ := ev.Discriminator()
		value, err := ev.ValueByDiscriminator()
		if err != nil || typ != string(want) {
			t.Fatalf("%s verified as %q (%T, %v)", want, typ, value, err)
		}
		if want == shipd.EventTypeShipmentCreated {
			if created, ok := value.(shipd.EventShipmentCreated); !ok || created.Data.Shipment.Id != sh.JSON201.Data.Id {
				t.Fatalf("shipment.created as %#v", value)
			}
		}
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(d.body)
		if d.header.Get("X-Service-Signature") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			t.Fatalf("%s: X-Service-Signature is not the body's HMAC", want)
		}
		if out, err := standardWebhooks(t, secret, d.header, d.body); err != nil || out != d.header.Get("Webhook-Id") {
			t.Fatalf("%s: the Standard Webhooks library said %q (%v)", want, out, err)
		}
	}

	d := rcv.await(t, ctx, string(shipd.EventTypeShipmentCreated), ch.Id)
	changed := bytes.Replace(d.body, []byte(`"type"`), []byte(` "type"`), 1)
	if out, err := standardWebhooks(t, secret, d.header, changed); err == nil {
		t.Fatalf("the library accepted a changed body: %s", out)
	}
	only := func(prefix string) http.Header {
		h := http.Header{}
		for k, v := range d.header {
			if strings.HasPrefix(k, prefix) {
				h[k] = v
			}
		}
		return h
	}
	with := func(h http.Header, name, value string) http.Header {
		h = h.Clone()
		h.Set(name, value)
		return h
	}
	later := shipd.WebhookVerifier{Secret: secret, Now: func() time.Time { return time.Now().Add(6 * time.Minute) }}
	earlier := shipd.WebhookVerifier{Secret: secret, Now: func() time.Time { return time.Now().Add(-6 * time.Minute) }}
	cases := []struct {
		name string
		err  error // nil: verifies
		try  func() error
	}{
		{"standard webhooks alone", nil, func() error { _, err := shipd.VerifyWebhook(secret, only("Webhook-"), d.body); return err }},
		{"github style alone", nil, func() error { _, err := shipd.VerifyWebhook(secret, only("X-Service-"), d.body); return err }},
		{"changed body", shipd.ErrSignatureMismatch, func() error { _, err := shipd.VerifyWebhook(secret, d.header, changed); return err }},
		{"changed body, github style", shipd.ErrSignatureMismatch, func() error { _, err := shipd.VerifyWebhook(secret, only("X-Service-"), changed); return err }},
		{"wrong secret", shipd.ErrSignatureMismatch, func() error { _, err := shipd.VerifyWebhook(secret+"x", d.header, d.body); return err }},
		{"changed id", shipd.ErrSignatureMismatch, func() error {
			_, err := shipd.VerifyWebhook(secret, with(d.header, "Webhook-Id", "evt_other"), d.body)
			return err
		}},
		{"stale timestamp", shipd.ErrTimestampStale, func() error { _, err := later.Verify(d.header, d.body); return err }},
		{"timestamp from the future", shipd.ErrTimestampStale, func() error { _, err := earlier.Verify(d.header, d.body); return err }},
		{"stale, github style", shipd.ErrTimestampStale, func() error { _, err := later.Verify(only("X-Service-"), d.body); return err }},
		{"no signature", shipd.ErrMalformedHeader, func() error { _, err := shipd.VerifyWebhook(secret, http.Header{}, d.body); return err }},
		{"signature not v1,base64", shipd.ErrMalformedHeader, func() error {
			_, err := shipd.VerifyWebhook(secret, with(d.header, "Webhook-Signature", "garbage"), d.body)
			return err
		}},
		{"timestamp not a number", shipd.ErrMalformedHeader, func() error {
			_, err := shipd.VerifyWebhook(secret, with(d.header, "Webhook-Timestamp", "yesterday"), d.body)
			return err
		}},
		{"webhook-id missing", shipd.ErrMalformedHeader, func() error {
			h := d.header.Clone()
			h.Del("Webhook-Id")
			_, err := shipd.VerifyWebhook(secret, h, d.body)
			return err
		}},
		{"github signature not sha256=hex", shipd.ErrMalformedHeader, func() error {
			_, err := shipd.VerifyWebhook(secret, with(only("X-Service-"), "X-Service-Signature", "md5=abc"), d.body)
			return err
		}},
	}
	sentinels := []error{shipd.ErrSignatureMismatch, shipd.ErrTimestampStale, shipd.ErrMalformedHeader}
	for _, tc := range cases {
		err := tc.try()
		if tc.err == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		for _, s := range sentinels {
			if errors.Is(err, s) != (s == tc.err) {
				t.Errorf("%s: %v, want %v and no other", tc.name, err, tc.err)
			}
		}
	}
}

// standardWebhooks verifies a delivery with the npm standardwebhooks
// library (testdata/standardwebhooks, installed by `npm ci` there).
func standardWebhooks(t *testing.T, secret string, header http.Header, body []byte) (string, error) {
	t.Helper()
	if _, err := os.Stat("testdata/standardwebhooks/node_modules/standardwebhooks"); err != nil {
		t.Fatal("the standardwebhooks library is not installed: run `npm ci` in sdk/go/testdata/standardwebhooks (make test-sdk-go does)")
	}
	headers := map[string]string{}
	for k := range header {
		headers[strings.ToLower(k)] = header.Get(k)
	}
	in, _ := json.Marshal(map[string]any{"secret": secret, "headers": headers, "body": string(body)})
	cmd := exec.Command("node", "verify.mjs")
	cmd.Dir = "testdata/standardwebhooks"
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
