// Package carrier is the port every carrier adapter implements and the
// carrier-neutral values that cross it. Adapters live in adapters/carriers.
package carrier

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Provider is one carrier API as the service knows it. Issue-by-issue the
// port grows (shipments, labels, tracking); credential validation and the
// published description are what every provider has.
type Provider interface {
	// Info describes the provider: settings schema, products, label formats.
	Info() ProviderInfo
	// ValidateCredentials asks the carrier whether settings are usable. A
	// carrier that says no returns *Rejection; one that cannot be reached
	// returns an error wrapping ErrUnavailable.
	ValidateCredentials(ctx context.Context, settings Settings) error
}

// Settings are a channel's provider settings, decrypted, as decoded from
// JSON (strings, booleans, float64 numbers).
type Settings map[string]any

// String returns the string setting key, or "" when absent.
func (s Settings) String(key string) string {
	v, _ := s[key].(string)
	return v
}

// Bool returns the boolean setting key, or false when absent.
func (s Settings) Bool(key string) bool {
	v, _ := s[key].(bool)
	return v
}

// ErrUnavailable marks failures where the carrier did not answer usefully
// (timeouts, 5xx, connection errors): worth retrying, never the user's fault.
var ErrUnavailable = errors.New("carrier unavailable")

// Rejection is the carrier saying no to what it was sent, with the setting or
// request field it blames when it names one.
type Rejection struct {
	Field   string // e.g. "clientSecret"; empty when the carrier names none
	Message string
}

func (r *Rejection) Error() string {
	if r.Field == "" {
		return r.Message
	}
	return r.Field + ": " + r.Message
}

// Reject is a *Rejection blaming field, its message formatted.
func Reject(field, format string, args ...any) *Rejection {
	return &Rejection{Field: field, Message: fmt.Sprintf(format, args...)}
}

// RejectionOf is nil for no problems, the problem itself for one, and
// Rejections for several.
func RejectionOf(problems []*Rejection) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return problems[0]
	}
	return Rejections(problems)
}

// SandboxMode reports whether the settings ask for the carrier's test host.
// Absent or not a boolean counts as true, the setting's default: a channel
// set up without choosing must never book real parcels.
func (s Settings) SandboxMode() bool {
	v, ok := s["sandboxMode"].(bool)
	return !ok || v
}

// LabelFormat is the requested format, else the channel's
// defaultLabelFormat, else pdf, lower case: the port leaves the fallback to
// the provider, and every provider falls back alike.
func (s Settings) LabelFormat(requested string) string {
	f := strings.ToLower(strings.TrimSpace(requested))
	if f == "" {
		f = strings.ToLower(strings.TrimSpace(s.String("defaultLabelFormat")))
	}
	if f == "" {
		f = "pdf"
	}
	return f
}
