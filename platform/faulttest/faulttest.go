// Package faulttest reads the field problems of a validation fault, as the
// API answers them, for the tests of the rules the domains enforce. It
// stands beside platform/fault, not under it, because everything under
// fault may import only the standard library (ADR 0005).
package faulttest

import (
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
