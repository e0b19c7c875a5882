package shipd

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The ways a delivery can fail verification, each its own error so that a
// receiver can log and count them apart (errors.Is).
var (
	// ErrSignatureMismatch: the signature is well formed but not the
	// body's under this secret: the body was changed, or the secret is not
	// the subscription's.
	ErrSignatureMismatch = errors.New("shipd: webhook signature does not match the body")
	// ErrTimestampStale: the signed timestamp is further from now than the
	// tolerance, in either direction: an old delivery replayed, or clocks
	// far apart.
	ErrTimestampStale = errors.New("shipd: webhook timestamp is outside the tolerance")
	// ErrMalformedHeader: a signature or timestamp header is missing or not
	// in its scheme's form.
	ErrMalformedHeader = errors.New("shipd: webhook signature headers are missing or malformed")
)

// DefaultWebhookTolerance is how far a delivery's timestamp may be from
// now: the Standard Webhooks libraries' default.
const DefaultWebhookTolerance = 5 * time.Minute

// VerifyWebhook checks a delivery's signatures with the subscription's
// secret and the default tolerance, and returns its event. Pass the body
// exactly as received: the signature is of those bytes.
func VerifyWebhook(secret string, headers http.Header, body []byte) (WebhookEvent, error) {
	return WebhookVerifier{Secret: secret}.Verify(headers, body)
}

// WebhookVerifier checks deliveries with a tolerance or clock of its own.
type WebhookVerifier struct {
	Secret    string
	Tolerance time.Duration    // 0: DefaultWebhookTolerance
	Now       func() time.Time // nil: time.Now
}

// Verify checks every signature scheme the delivery carries: shipd signs
// each delivery twice, Standard Webhooks (webhook-id, webhook-timestamp,
// webhook-signature) and GitHub-style (X-Service-Signature over the body,
// X-Service-Timestamp beside it). At least one must be there, and each one
// there must verify: a proxy may drop one scheme's headers, but a forged
// header of either is refused. The signature is checked before the
// timestamp, so ErrTimestampStale says a genuine delivery is old.
func (v WebhookVerifier) Verify(headers http.Header, body []byte) (WebhookEvent, error) {
	var ev WebhookEvent
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	tolerance := v.Tolerance
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	key := []byte(v.Secret)
	standard := header(headers, "Webhook-Id") != "" || header(headers, "Webhook-Timestamp") != "" || header(headers, "Webhook-Signature") != ""
	github := header(headers, "X-Service-Signature") != ""
	if !standard && !github {
		return ev, fmt.Errorf("%w: no webhook-signature or X-Service-Signature", ErrMalformedHeader)
	}
	if standard {
		if err := verifyStandard(key, headers, body, now(), tolerance); err != nil {
			return ev, err
		}
	}
	if github {
		if err := verifyGitHubStyle(key, headers, body, now(), tolerance); err != nil {
			return ev, err
		}
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, fmt.Errorf("shipd: webhook body is not an event: %w", err)
	}
	if t, err := ev.Discriminator(); err != nil || t == "" {
		return ev, errors.New("shipd: webhook body has no event type")
	}
	return ev, nil
}

// verifyStandard checks the Standard Webhooks signature: "v1," and the
// base64 HMAC-SHA256 of "id.timestamp.body", keyed with the secret's bytes.
// The header may list several space-separated signatures (a secret being
// rotated); one match is enough.
func verifyStandard(key []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, tsText, sigs := header(h, "Webhook-Id"), header(h, "Webhook-Timestamp"), header(h, "Webhook-Signature")
	if id == "" || tsText == "" || sigs == "" {
		return fmt.Errorf("%w: webhook-id, webhook-timestamp and webhook-signature go together", ErrMalformedHeader)
	}
	ts, err := parseUnix(tsText)
	if err != nil {
		return err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + tsText + "."))
	m.Write(body)
	want := m.Sum(nil)
	found := false
	for _, s := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue // another scheme's signature (v1a): not ours to check
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			continue
		}
		found = true
		if hmac.Equal(got, want) {
			return fresh(ts, now, tolerance)
		}
	}
	if !found {
		return fmt.Errorf("%w: webhook-signature has no v1,<base64> signature", ErrMalformedHeader)
	}
	return ErrSignatureMismatch
}

// verifyGitHubStyle checks X-Service-Signature, "sha256=" and the hex
// HMAC-SHA256 of the body. That signature does not cover X-Service-Timestamp,
// so the timestamp check only turns away a delivery replayed as it was sent;
// the Standard Webhooks scheme, which signs its timestamp, is the stronger.
func verifyGitHubStyle(key []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	hexSig, ok := strings.CutPrefix(header(h, "X-Service-Signature"), "sha256=")
	got, err := hex.DecodeString(hexSig)
	if !ok || err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: X-Service-Signature is not sha256=<64 hex digits>", ErrMalformedHeader)
	}
	tsText := header(h, "X-Service-Timestamp")
	if tsText == "" {
		return fmt.Errorf("%w: X-Service-Timestamp is missing", ErrMalformedHeader)
	}
	ts, err := parseUnix(tsText)
	if err != nil {
		return err
	}
	m := hmac.New(sha256.New, key)
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrSignatureMismatch
	}
	return fresh(ts, now, tolerance)
}

func parseUnix(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: timestamp %q is not Unix seconds", ErrMalformedHeader, s)
	}
	return time.Unix(n, 0), nil
}

func fresh(ts, now time.Time, tolerance time.Duration) error {
	if d := now.Sub(ts); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: signed at %s, %s from now", ErrTimestampStale, ts.UTC().Format(time.RFC3339), d.Round(time.Second))
	}
	return nil
}

// header reads a header whatever the case of its name in h: a server's
// http.Header is canonical, a map a caller built may not be.
func header(h http.Header, name string) string {
	if v := h.Get(name); v != "" {
		return v
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}
