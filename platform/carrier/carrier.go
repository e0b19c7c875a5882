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

// RefusalsOf is the carrier's reasons for refusing, one or several (a
// Rejections, which errors.As finds only as a whole), or false when err is
// no refusal (nil, or a carrier that could not be reached).
func RefusalsOf(err error) ([]*Rejection, bool) {
	var many Rejections
	if errors.As(err, &many) && len(many) > 0 {
		return many, true
	}
	var one *Rejection
	if errors.As(err, &one) {
		return []*Rejection{one}, true
	}
	return nil, false
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

// DefaultLabelFormat is the label format of a shipment that names none on a
// channel whose settings name none; every provider publishes it as the
// default of its LabelFormatSetting (a test of the composition root holds
// them to it).
const DefaultLabelFormat = "pdf"

// LabelFormatSetting is the setting by which a channel names its default
// label format.
const LabelFormatSetting = "defaultLabelFormat"

// LabelFormat is the one rule of a shipment's label format: the requested
// format, else the channel's LabelFormatSetting, else DefaultLabelFormat;
// lower case, white space around either ignored. The shipments module
// applies it when a shipment is created, every provider again when it books
// or prints (the port leaves the fallback to them), and the dashboard shows
// a channel's default through it.
func (s Settings) LabelFormat(requested string) string {
	if f := strings.ToLower(strings.TrimSpace(requested)); f != "" {
		return f
	}
	f, _ := s.DefaultLabelFormat()
	return f
}

// DefaultLabelFormat is the format of a shipment on the channel that names
// none, and whether the channel's settings chose it (false: the
// DefaultLabelFormat every provider publishes).
func (s Settings) DefaultLabelFormat() (format string, own bool) {
	if f := strings.ToLower(strings.TrimSpace(s.String(LabelFormatSetting))); f != "" {
		return f, true
	}
	return DefaultLabelFormat, false
}
