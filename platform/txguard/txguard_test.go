package txguard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"shipd/platform/logtest"
)

// quiet runs the test with refusals returned, as in production.
func quiet(t *testing.T) {
	loud = false
	t.Cleanup(func() { loud = true })
}

func TestOpenFollowsTheTransaction(t *testing.T) {
	var open atomic.Bool
	ctx := Hold(t.Context(), "the test's transaction", open.Load)
	if got := Open(ctx); got != "" {
		t.Errorf("before it began: Open = %q, want none", got)
	}
	open.Store(true)
	if got := Open(ctx); got != "the test's transaction" {
		t.Errorf("while open: Open = %q", got)
	}
	open.Store(false)
	if got := Open(ctx); got != "" {
		t.Errorf("after it finished: Open = %q, want none", got)
	}
	if got := Open(t.Context()); got != "" {
		t.Errorf("an unmarked context: Open = %q", got)
	}
}

// An inner mark does not hide an outer transaction that is still open.
func TestOpenSeesAnOuterTransaction(t *testing.T) {
	outer := Hold(t.Context(), "the subscriber's transaction", nil)
	inner := Hold(outer, "a scope", func() bool { return false })
	if got := Open(inner); got != "the subscriber's transaction" {
		t.Errorf("Open = %q, want the outer transaction", got)
	}
}

func TestCheckRefusesUnderAnOpenTransactionAndLogsIt(t *testing.T) {
	quiet(t)
	logs := logtest.Capture(t)
	if err := Check(t.Context(), "carrier ppl create_shipment"); err != nil {
		t.Fatalf("no transaction: %v", err)
	}
	ctx := Hold(t.Context(), "a postgres.Scope transaction", nil)
	err := Check(ctx, "carrier ppl create_shipment")
	if !errors.Is(err, ErrInTransaction) || !strings.Contains(err.Error(), "carrier ppl create_shipment") || !strings.Contains(err.Error(), "a postgres.Scope transaction") {
		t.Fatalf("err = %v; want ErrInTransaction naming the call and the transaction", err)
	}
	line := logs.String()
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "outbound call refused") || !strings.Contains(line, "create_shipment") {
		t.Errorf("log: %s", line)
	}
}

func TestCheckPanicsUnderGoTest(t *testing.T) {
	logtest.Capture(t)
	ctx := Hold(t.Context(), "a postgres.Scope transaction", nil)
	var returned error
	err := Refusal(func() { returned = Check(ctx, "POST /webhook") })
	if !errors.Is(err, ErrInTransaction) {
		t.Fatalf("Refusal = %v; want the refusal the call panicked with", err)
	}
	if returned != nil {
		t.Error("Check returned instead of panicking")
	}
	if err := Refusal(func() { _ = Check(t.Context(), "POST /webhook") }); err != nil {
		t.Errorf("a call with no transaction: %v", err)
	}
}

func TestRefusalPassesOtherPanicsOn(t *testing.T) {
	defer func() {
		if p := recover(); p != "something else" {
			t.Errorf("recovered %v", p)
		}
	}()
	_ = Refusal(func() { panic("something else") })
	t.Error("the panic was swallowed")
}

func TestTransportChecksEachRequest(t *testing.T) {
	quiet(t)
	logtest.Capture(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: Transport(nil)}
	send := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/hook", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := client.Do(req)
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	var open atomic.Bool
	ctx := Hold(t.Context(), "a postgres.Scope transaction", open.Load)
	if err := send(ctx); err != nil {
		t.Fatalf("before the transaction began: %v", err)
	}
	open.Store(true)
	if err := send(ctx); !errors.Is(err, ErrInTransaction) {
		t.Fatalf("while open: err = %v, want ErrInTransaction", err)
	}
	open.Store(false)
	if err := send(ctx); err != nil {
		t.Fatalf("after it finished: %v", err)
	}
	if got := hits.Load(); got != 2 {
		t.Errorf("the server was called %d times, want 2 (the refused call never went out)", got)
	}
}
