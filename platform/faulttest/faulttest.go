// Package faulttest reads the faults the domains and the use cases answer
// (the field problems of a validation fault, as the API answers them), for
// the tests of the rules they enforce. It
// stands beside platform/fault, not under it, because everything under
// fault may import only the standard library (ADR 0005).
package faulttest

import (
	"strings"
	"testing"

	"shipd/platform/fault"
)

// Fields is err's field problems; nil for no error, and a test failure for
// an error of another kind.
func Fields(t testing.TB, err error) map[string][]string {
	t.Helper()
	if err == nil {
		return nil
	}
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.KindValidation {
		t.Fatalf("error %v is no validation fault", err)
	}
	return fe.Fields
}

// One is the field problems of a single message on one path.
func One(path, message string) map[string][]string { return map[string][]string{path: {message}} }

// WantFields checks that err is a validation fault whose messages for each
// field of want contain the text given, and that no other field has one.
func WantFields(t testing.TB, err error, want map[string]string) {
	t.Helper()
	f, ok := fault.As(err)
	if !ok || f.Kind != fault.KindValidation {
		t.Fatalf("error %v, want a validation fault on %v", err, want)
	}
	if len(f.Fields) != len(want) {
		t.Errorf("fields %v, want %d: %v", f.Fields, len(want), want)
	}
	for field, text := range want {
		if msgs := strings.Join(f.Fields[field], "; "); !strings.Contains(msgs, text) {
			t.Errorf("%s: %q, want it to say %q", field, msgs, text)
		}
	}
}

// WantKind checks that err is a fault of kind k.
func WantKind(t testing.TB, err error, k fault.Kind) {
	t.Helper()
	if !fault.Is(err, k) {
		t.Fatalf("error %v (%T), want a fault of kind %d", err, err, k)
	}
}
