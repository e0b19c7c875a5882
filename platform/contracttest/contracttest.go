// Package contracttest is what the modules' repository contract suites
// (each module's adapters/repositorytest, ADR 0037) do alike: each test on
// a fresh subject of its own, in parallel; an id that is not there refused
// as not found by every operation; updates of one aggregate at once kept
// one after another.
package contracttest

import (
	"context"
	"testing"

	"shipd/platform/fault"
)

// Case is one test of a suite, run on the subject it is given.
type Case[S any] struct {
	Name string
	Test func(t *testing.T, s S)
}

// Run runs each case as a parallel subtest of t on a subject newSubject
// makes for that case alone.
func Run[S any](t *testing.T, newSubject func(t *testing.T) S, cases []Case[S]) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Test(t, newSubject(t))
		})
	}
}

// WantNotFound fails t for each operation (by name) whose error about a
// missing aggregate (what, e.g. "a missing channel") is not
// fault.NotFound, and when fnCalled says the caller's function was handed
// one all the same.
func WantNotFound(t *testing.T, what string, errs map[string]error, fnCalled bool) {
	t.Helper()
	for op, err := range errs {
		if !fault.Is(err, fault.KindNotFound) {
			t.Errorf("%s of %s: %v, want not found", op, what, err)
		}
	}
	if fnCalled {
		t.Errorf("fn was called for %s", what)
	}
}

// Concurrently makes n calls of update at once, on a context no test's end
// cancels (a repository must finish what it began), and fails t for each
// that returns an error; the caller then checks that none was lost.
func Concurrently(t *testing.T, n int, update func(ctx context.Context) error) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	errs := make(chan error, n)
	for range n {
		go func() { errs <- update(ctx) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
