// Package txguard checks the rule of ADR 0001, no network I/O inside a
// database transaction, where it would be broken, instead of leaving it to
// review. Code that holds a transaction marks its context (Hold): a
// postgres.Scope from its first write until it finishes (the
// Idempotency-Key's atomic phase, ADR 0007), a subscriber's transaction for
// the handlers it runs. Every outbound call of shipd's asks Check first (a
// carrier call through carrier.Observe and carrierhttp, a webhook POST, the
// channels facade over HTTP), and the clients it builds send through
// Transport. A call under an open transaction is refused: it would hold the
// transaction, its row locks and its connection for as long as the remote
// party takes, and an open transaction holds back every subscriber.
//
// The package imports only the standard library, so platform/carrier, which
// the domains import, can use it.
package txguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"testing"
)

// ErrInTransaction is what the error of a refused call wraps.
var ErrInTransaction = errors.New("outbound call inside an open database transaction")

type holder struct {
	what   string
	open   func() bool
	parent *holder // an outer transaction's mark, still asked
}

type key struct{}

// Hold returns ctx marked as running inside the transaction what names. open
// reports whether it is open now (begun and not yet finished); nil means it
// is open for as long as ctx is used.
func Hold(ctx context.Context, what string, open func() bool) context.Context {
	parent, _ := ctx.Value(key{}).(*holder)
	return context.WithValue(ctx, key{}, &holder{what: what, open: open, parent: parent})
}

// Open names the open transaction ctx runs inside, or is "" when there is
// none.
func Open(ctx context.Context) string {
	h, _ := ctx.Value(key{}).(*holder)
	for ; h != nil; h = h.parent {
		if h.open == nil || h.open() {
			return h.what
		}
	}
	return ""
}

// loud makes a refused call panic under go test, besides returning its
// error: a returned error can be retried away, turned into a status or a
// webhook delivery's failure, and the ERROR line discarded with the test's
// logs, while a panic reaches the test (a request's answers 500, a worker's
// crashes the test binary) with the stack of the call.
var loud = testing.Testing()

// Check returns nil when no transaction is open in ctx. Otherwise it logs
// at ERROR and returns an error wrapping ErrInTransaction that names call
// (what was about to go out) and the transaction; under go test it panics
// with that error instead.
func Check(ctx context.Context, call string) error {
	what := Open(ctx)
	if what == "" {
		return nil
	}
	err := fmt.Errorf("%w: %s while %s is open; claim and commit, call, then record in a new transaction (ADR 0001)", ErrInTransaction, call, what)
	stack := string(debug.Stack())
	slog.ErrorContext(ctx, "outbound call refused: a database transaction is open", "call", call, "transaction", what, "stack", stack)
	if loud {
		fmt.Fprintf(os.Stderr, "txguard: %v\n%s\n", err, stack)
		panic(err)
	}
	return err
}

// Transport returns base (http.DefaultTransport when nil) with every request
// checked against its context's transaction first.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return transport{base}
}

type transport struct{ base http.RoundTripper }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := Check(req.Context(), req.Method+" "+req.URL.Host+req.URL.Path); err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even when it fails
		}
		return nil, err
	}
	return t.base.RoundTrip(req)
}

// Refusal runs fn and returns the refusal it panicked with under go test,
// or nil when it made none; any other panic goes on. For tests of code that
// must be refused.
func Refusal(fn func()) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if e, ok := p.(error); ok && errors.Is(e, ErrInTransaction) {
			err = e
			return
		}
		panic(p)
	}()
	fn()
	return nil
}
