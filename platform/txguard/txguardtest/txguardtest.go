// Package txguardtest holds an outbound call to ADR 0001 in a test: it
// goes out outside a database transaction and is refused inside one.
package txguardtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"shipd/platform/txguard"
)

// RefusedOnlyInside makes call three times on one context marked with a
// transaction (txguard.Hold): before the transaction began and after it
// finished, when call must succeed, and while it is open, when txguard
// must refuse it. what names the call in failures; the caller then counts
// what reached the other side (twice: the refused call stays home).
func RefusedOnlyInside(t testing.TB, what string, call func(ctx context.Context) error) {
	t.Helper()
	var open atomic.Bool
	ctx := txguard.Hold(t.Context(), "the test's transaction", open.Load)
	if err := call(ctx); err != nil {
		t.Errorf("%s before the transaction began: %v", what, err)
	}
	open.Store(true)
	var err error
	if refused := txguard.Refusal(func() { err = call(ctx) }); !errors.Is(refused, txguard.ErrInTransaction) {
		t.Errorf("%s inside: refused %v, returned %v; want a refusal", what, refused, err)
	}
	open.Store(false)
	if err := call(ctx); err != nil {
		t.Errorf("%s after it finished: %v", what, err)
	}
}
